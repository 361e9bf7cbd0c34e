package glassbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/bus"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// runView is one run in the glass box: its engine, how the UI drives it (the
// step in flight, what that step waits for, the dialog it opened) and the
// state of its panes. The single-run glass box has one; compare mode has
// two, stepped from the same keys. What is not a run's the Model and its
// controllers keep: the layout, the keyboard focus (stepper), the input
// line, the dialogs.
//
// Every message a run's step sends back carries the run's id (its index in
// Model.runs), so two steps in flight never mix.
type runView struct {
	id    int
	name  string    // compare mode: the run's dialect, as --compare names it
	label string    // compare mode: how the run is named on screen
	lang  lang.Lang // the language of what the run's panes and notices say

	eng    *loop.Engine
	person *Person
	base   context.Context // parent of every step's context

	// Static facts read from the engine once, before any step runs.
	provider, model, backend, reason string
	why                              dialect.Reason // reason as its dialect gave it, when it did
	banner, workspace                string
	temporary                        bool // the workspace is a copy removed on exit
	maxIter                          int

	// What the transitions told us (the UI's own copy), and the run's
	// panes (paneKinds), each holding its own state; the four its features
	// talk to are kept by their type too.
	live    *liveState
	panes   [numPanes]component
	sized   [numPanes]bool // the pane has been given a size
	history *historyPane
	diagram *diagramPane
	tools   *toolsPane
	payload *payloadPane

	// Driving the loop.
	busy    bool
	forking bool // the engine is going back to a step (f, F, A) in a command
	// submitted is closed once the engine has the last event sent to it
	// (submitCmd); nil before the first.
	submitted  chan struct{}
	stepCtx    context.Context
	stepCancel context.CancelFunc
	// events is the one stream from the engine to this run's panes: what a
	// step tells while it runs (retries, the request going out, the
	// response's chunks: loop.Notice) and, last, the step's own result, each
	// as a typed message naming the run, in the order they happened.
	events   chan tea.Msg
	inflight *providers.Exchange
	// bus is the run on the MCP bus (RunConfig.Bus), or nil; listens is
	// RunConfig.BusListens.
	bus     *bus.Bus
	listens bool
	// liveFrames are the MCP frames of the step in flight, as they pass
	// (docs/mcp.md): a tool call waiting on its server shows its request.
	liveFrames []tools.Frame
	mode       runMode
	runKey     string // the key that started the current run ("n" guards the dialog's deny)
	runSteps   int    // transitions taken since the run started
	runModal   bool   // the current run needed a person
	pauseAsked bool
	// breaks are the breakpoints in force on the run, and what they
	// matched on the step before; stopped is the one that began to match
	// on the latest step, if any (ui/glassbox/breaks.go).
	breaks  *breakpoint.Watch
	stopped *breakpoint.Hit

	// The dialog this run's step is waiting on, if any.
	confirm *confirmModal
	ask     *askModal
	hidden  bool // esc hid the dialog; the step still waits for the person

	onto OntoFunc
	// observe hears each transition this run takes (Config.OnTransition).
	observe func(loop.Transition)
	// observeWire hears the model call in flight (Config.OnWire).
	observeWire func(providers.Exchange)
	// status is one more status bar segment (Config.Status).
	status func() (string, string)
	// telemetry counts the spans sent to a collector (nil: no export).
	telemetry func() telemetry.Stats
	// predict is predict mode's score for the status bar ("" when off).
	predict string
	// store keeps the raw payloads of the latest model calls in memory and
	// reads older ones back from the session (spill.go).
	store payloadStore
	// branches are the steps forks and A left behind; viewing is the one B
	// shows in place of the run's own line, or nil.
	branches []branch
	viewing  *branchView
	// baseEntries are the History entries from before the first step (the
	// welcome, a resumed past): what abandoning the first event leaves.
	baseEntries int
	notice      string // one line: what just happened to this run
	// disk measures the session file for the health line.
	disk sessionGauge
	// edit is what a what-if changed in the context about to be sent (a
	// unified diff), shown with the request until the next step.
	edit string
	// tapStatus is a tap's segment of the status bar (nil: not a tap).
	tapStatus func(lang.Lang) string
}

// OntoFunc builds the provider of another dialect (named as --compare
// names it) for a run to continue with.
type OntoFunc func(ctx context.Context, dialect string) (onto loop.Onto, switched func(), err error)

// RunConfig is one run of compare mode.
type RunConfig struct {
	// Name is the run's dialect, as --compare names it
	// (providers/backend's registry lists them).
	Name string
	// Label is how the screen names it: the dialect's Label.
	Label string
	// Engine and Person as in Config; each run has its own.
	Engine *loop.Engine
	Person *Person
	// Backend is "live", "offline" or "replay" for this run; BackendReason
	// says why, and BackendWhy is that reason as its dialect gave it
	// (backend.Backend.Why), to say in the reader's language.
	Backend       string
	BackendReason string
	BackendWhy    dialect.Reason
	// Banner describes the run's provider and backend in one line.
	Banner string
	// Workspace is this run's own copy of the workspace.
	Workspace string
	// Temporary says the workspace is a copy removed on exit.
	Temporary bool
	// Past are the steps a resumed run took before (loop.SessionTransitions):
	// time travel reaches them, every pane as it was, payloads included.
	Past []loop.Transition
	// Notes are said in History before anything else happens: what resuming
	// a session found (a torn line dropped, a step interrupted by a crash).
	Notes []string
	// Onto builds another dialect's provider for this run to fork onto
	// (F); switched is called once the engine uses it. Nil: F is off.
	Onto OntoFunc
	// Provider, Model and MaxIterations describe a run with no Engine (a
	// followed run): an engine's own are used when there is one.
	Provider, Model string
	MaxIterations   int
	// Bus is the run on the MCP bus (loop/bus): a lesson that comes from
	// the bus is sent through it, and each request it queues is counted and
	// announced. Nil: the run is not on the bus.
	Bus *bus.Bus
	// BusListens says requests may reach Bus from outside at any time
	// (--mcp-listen): the glass box waits for them all along.
	BusListens bool
	// Exchanges reads a step's raw exchanges back from the session file
	// (its ExchangesAt). With it, only the latest model calls' payloads
	// stay in memory.
	Exchanges func(t *loop.Transition) ([]providers.Exchange, error)
}

func newRunView(id int, rc RunConfig, l lang.Lang) *runView {
	r := &runView{
		id:        id,
		lang:      l,
		name:      rc.Name,
		label:     rc.Label,
		eng:       rc.Engine,
		person:    rc.Person,
		base:      context.Background(),
		backend:   rc.Backend,
		reason:    rc.BackendReason,
		why:       rc.BackendWhy,
		banner:    rc.Banner,
		onto:      rc.Onto,
		store:     payloadStore{load: rc.Exchanges, keep: keepPayloads, reloaded: -1},
		workspace: rc.Workspace,
		temporary: rc.Temporary,
		live:      newLiveState(l),
		breaks:    breakpoint.NewWatch(),
		events:    make(chan tea.Msg, 1024),
		bus:       rc.Bus,
		listens:   rc.Bus != nil && rc.BusListens,
	}
	r.makePanes()
	if r.eng == nil {
		r.provider, r.model, r.maxIter = rc.Provider, rc.Model, rc.MaxIterations
		r.live.state = loop.WaitingForEvent
		return r
	}
	r.eng.SetOnNotice(r.hear)
	if p := r.eng.Provider(); p != nil {
		r.provider, r.model = p.Name(), p.Model()
	}
	if r.backend == "" {
		r.backend = r.eng.Backend()
	}
	r.maxIter = r.eng.MaxIterations()
	r.live.state = r.eng.State()
	r.live.iteration = r.eng.Iteration()
	r.live.queued = r.eng.QueueLen()
	return r
}

// loadPast puts what the engine already holds on the panes: the steps of a
// resumed run as they were taken (past), then any message the engine holds
// that no step added (a fork's note, a conversation given without steps).
func (r *runView) loadPast(past []loop.Transition) {
	if r.eng == nil {
		return
	}
	added := 0
	for _, t := range past {
		r.live.record(r.history, t)
		// The payload pane's side as it was live; the messages up to the
		// step's history length (a what-if edit may add some no step did).
		r.payload.follow(&t)
		added = max(added+len(t.Added), t.HistoryLen)
		if t.LLM != nil && len(t.Exchanges) == 0 && t.ExchangesAt != nil && r.store.load != nil {
			// Its payload is on disk: read back when a pane shows it.
			r.live.steps[len(r.live.steps)-1].spilled = true
		}
	}
	r.store.spill(r.live)
	r.baseEntries = r.history.len()
	if hist := r.eng.History(); added < len(hist) {
		for _, msg := range hist[added:] {
			r.live.addMessage(r.history, msg)
		}
	}
	r.live.state = r.eng.State()
	r.live.iteration = r.eng.Iteration()
}

// title is how the screen names the run in a few letters: its dialect, else
// its provider.
func (r *runView) title() string {
	if r.name != "" {
		return r.name
	}
	return r.provider
}

// stepResult is what one engine.Step returned. A step that assembled the
// next request (context_ready) also brings that request as it will go on
// the wire, previewed before it is sent.
type stepResult struct {
	t       loop.Transition
	err     error
	preview *preview
}

// preview is the request a step assembled, built by the provider's SDK and
// stopped before the wire (or why it could not be built).
type preview struct {
	ex  providers.Exchange
	err error
}

// runMsg is a message from one run's step in flight.
type runMsg interface{ runID() int }

// stepDoneMsg: the run's step in flight has finished (or failed, or was
// cancelled).
type stepDoneMsg struct {
	run int
	stepResult
}

// personRequestMsg: the run's step in flight is waiting for the person (a
// confirmation or an ask_user question).
type personRequestMsg struct {
	run int
	req *personRequest
}

// wireRequestMsg: the run's provider call just put its request on the wire
// (redacted, as captured).
type wireRequestMsg struct {
	run int
	ex  providers.Exchange
}

// wireChunkMsg: a piece of the response body of the run's call arrived.
type wireChunkMsg struct {
	run   int
	chunk providers.Chunk
}

// mcpFrameMsg: a JSON-RPC frame passed between the run's step and an MCP
// server.
type mcpFrameMsg struct {
	run   int
	frame tools.Frame
}

// retryMsg: the run's provider call failed transiently; the engine waits
// before trying again. Shown at once, not only when the step returns.
type retryMsg struct {
	run   int
	retry loop.Retry
}

func (m stepDoneMsg) runID() int      { return m.run }
func (m personRequestMsg) runID() int { return m.run }
func (m wireRequestMsg) runID() int   { return m.run }
func (m wireChunkMsg) runID() int     { return m.run }
func (m retryMsg) runID() int         { return m.run }
func (m mcpFrameMsg) runID() int      { return m.run }

// update takes in a message from this run's step.
func (r *runView) update(msg runMsg) tea.Cmd {
	switch msg := msg.(type) {
	case stepDoneMsg:
		return r.handleStepDone(msg.stepResult)
	case whatIfDoneMsg:
		return whatIfDone(r, msg)
	case exchangesMsg:
		r.store.loaded(msg, r.live, r.lang)
		return nil
	case pastAnatomyMsg:
		r.live.book.pastRead(msg, r.live)
		return nil
	case handoutMsg:
		handoutDone(r, msg)
		return nil
	case sessionSizeMsg:
		return r.disk.measured(r, msg)
	case previewMsg:
		r.previewed(msg)
		return nil
	case personRequestMsg:
		return r.handlePersonRequest(msg.req)
	}
	r.heard(msg)
	return r.await()
}

// pendingPreview builds the request a resumed run stopped in front of (its
// last step assembled it, context_ready): the Raw payload and Anatomy panes
// read it before space sends it, as they do right after that step.
func (r *runView) pendingPreview() tea.Cmd {
	n := len(r.live.steps)
	if r.eng == nil || n == 0 || r.live.steps[n-1].t.Edge != loop.EdgeContextReady || r.live.steps[n-1].preview != nil {
		return nil
	}
	eng, id := r.eng, r.id
	return func() tea.Msg {
		ex, err := eng.PreviewRequest(context.Background())
		if errors.Is(err, loop.ErrNoPreview) {
			return nil
		}
		return previewMsg{run: id, preview: &preview{ex: ex, err: err}}
	}
}

// previewed keeps the request a context_ready step assembled, for the Raw
// payload pane to show before it is sent.
func (r *runView) previewed(msg previewMsg) {
	if n := len(r.live.steps); n > 0 && r.live.steps[n-1].t.Edge == loop.EdgeContextReady {
		r.live.steps[n-1].preview = msg.preview
	}
}

// heard takes in what the engine told while the step runs (see hear): a
// retry's wait, an MCP frame, the model call's request and each piece of
// its response.
func (r *runView) heard(msg runMsg) {
	switch msg := msg.(type) {
	case retryMsg:
		rt := msg.retry
		what := rt.Reason
		if rt.Status != 0 {
			what = fmt.Sprintf("HTTP %d", rt.Status)
		}
		r.notice = r.lang.F("retry %d: %s — waiting %s before trying again (ctrl+c cancels)", rt.Attempt, what, time.Duration(rt.WaitMS)*time.Millisecond)
	case mcpFrameMsg:
		r.liveFrames = append(r.liveFrames, msg.frame)
	case wireRequestMsg:
		ex := msg.ex // a retry starts a new exchange
		r.inflight = &ex
		r.wired()
	case wireChunkMsg:
		if r.inflight != nil {
			ex := *r.inflight
			ex.Chunks = append(ex.Chunks[:len(ex.Chunks):len(ex.Chunks)], msg.chunk)
			r.inflight = &ex
			r.wired()
		}
	}
}

// wired tells Config.OnWire the call in flight as it stands now.
func (r *runView) wired() {
	if r.observeWire != nil {
		r.observeWire(*r.inflight)
	}
}

// hear turns what the engine tells during a step into the run's typed
// message and puts it on the run's stream. It never blocks the engine: what
// the panes miss live (a full stream), the step's record has in full.
func (r *runView) hear(n loop.Notice) {
	var msg tea.Msg
	switch n := n.(type) {
	case loop.Retry:
		msg = retryMsg{run: r.id, retry: n}
	case loop.WireRequest:
		msg = wireRequestMsg{run: r.id, ex: n.Exchange}
	case loop.WireChunk:
		msg = wireChunkMsg{run: r.id, chunk: n.Chunk}
	case loop.MCPFrame:
		msg = mcpFrameMsg{run: r.id, frame: n.Frame}
	default:
		return
	}
	select {
	case r.events <- msg:
	default:
	}
}

// stepCmd runs one engine.Step in the background and reports back through
// the run's stream, where the step's result follows everything the step
// told while it ran. The step may stop on the person halfway: then the
// command returns a personRequestMsg, and once the dialog is answered await
// goes on reading the same stream.
func (r *runView) stepCmd(ctx context.Context) tea.Cmd {
	eng, events, w, id, queued := r.eng, r.events, r.waiting(), r.id, r.submitted
	return func() tea.Msg {
		go func() {
			if queued != nil {
				<-queued // the event sent just before is in the engine
			}
			t, err := eng.Step(ctx)
			res := stepResult{t: t, err: err}
			if err == nil && t.To == loop.AwaitingLLMResponse {
				ex, perr := eng.PreviewRequest(ctx)
				if !errors.Is(perr, loop.ErrNoPreview) {
					res.preview = &preview{ex: ex, err: perr}
				}
			}
			events <- stepDoneMsg{run: id, stepResult: res} // never dropped
		}()
		return w.next()
	}
}

// stepWait is where a step in flight is heard from: the run's stream, and
// the person's requests (a confirmation or a question, which the step waits
// on).
type stepWait struct {
	run      int
	events   <-chan tea.Msg
	requests <-chan *personRequest
}

func (w stepWait) next() tea.Msg {
	select {
	case msg := <-w.events:
		return msg
	case req := <-w.requests:
		return personRequestMsg{run: w.run, req: req}
	}
}

// waiting is the stepWait of the run's step in flight.
func (r *runView) waiting() stepWait {
	return stepWait{run: r.id, events: r.events, requests: r.person.requestChan()}
}

// await keeps waiting for the step in flight after a dialog was answered,
// a retry was shown or a piece of the wire arrived.
func (r *runView) await() tea.Cmd {
	if !r.busy {
		return nil
	}
	w := r.waiting()
	return func() tea.Msg { return w.next() }
}

// startRun begins a run of steps: one transition, one iteration or
// continue.
func (r *runView) startRun(mode runMode, by string) tea.Cmd {
	if r.busy {
		r.notice = r.lang.T("busy: a step is in flight (p pauses a run, ctrl+c cancels)")
		return nil
	}
	if r.forking {
		r.notice = r.lang.T("busy: the run is going back to a step")
		return nil
	}

	if r.eng == nil {
		r.notice = r.lang.T("no engine is attached")
		return nil
	}
	r.mode, r.runKey, r.runSteps, r.runModal, r.pauseAsked = mode, by, 0, false, false
	r.live.cursor = -1 // stepping shows the present
	return r.startStep()
}

// startStep sends one engine.Step on its way.
func (r *runView) startStep() tea.Cmd {
	ctx, cancel := context.WithCancel(r.base)
	r.stepCtx, r.stepCancel = ctx, cancel
	r.busy = true
	r.notice = ""
	r.edit = ""
	for len(r.events) > 0 { // notices of an earlier step: its record has them
		<-r.events
	}
	r.inflight, r.liveFrames = nil, nil
	return r.stepCmd(ctx)
}

// cancelStep cancels the step in flight, if any.
func (r *runView) cancelStep() {
	if r.stepCancel != nil {
		r.stepCancel()
	}
}

// handleStepDone takes in a finished step and decides whether the run goes
// on; the session's size for the health line is measured after it.
func (r *runView) handleStepDone(res stepResult) tea.Cmd {
	cmd := r.stepDone(res)
	return tea.Batch(cmd, r.disk.measure(r.id, !r.busy))
}

// stepDone records the step's transition (or says why it failed) and
// starts the next step when the run goes on.
func (r *runView) stepDone(res stepResult) tea.Cmd {
	r.busy = false
	r.cancelStep()
	r.stepCancel = nil
	r.confirm, r.ask, r.hidden = nil, nil, false // a cancelled step may leave a dialog behind

	if res.err != nil {
		r.mode = runOne
		switch {
		case errors.Is(res.err, loop.ErrIdle):
			r.notice = r.lang.T("idle — nothing queued: enter (or /) to type a request")
		case errors.Is(res.err, context.Canceled), errors.Is(res.err, context.DeadlineExceeded):
			if r.live.state == loop.AwaitingLLMResponse {
				r.notice = r.lang.T("cancelled: press space to send again")
			} else {
				r.notice = r.lang.T("cancelled: press space to try again")
			}
		case errors.Is(res.err, loop.ErrBusy):
			r.notice = r.lang.T("the engine is busy with another step")
		default:
			r.notice = r.lang.F("step failed: %v", res.err)
		}
		return nil
	}

	t := res.t
	r.live.record(r.history, t)
	hit := r.breakHit(t)
	if r.observe != nil {
		r.observe(t)
	}
	r.live.steps[len(r.live.steps)-1].preview = res.preview
	r.store.spill(r.live)
	r.payload.follow(&t)
	r.tools.reset()
	r.runSteps++

	if stop, why := r.shouldStop(t, hit); stop {
		if hit != nil && r.mode != runOne {
			r.history.note(why) // History keeps which breakpoint stopped the run, and where
		}
		r.notice = why
		r.mode = runOne
		if t.To == loop.AwaitingUserConfirmation && r.person != nil {
			// The engine asks the person in the next Step: start it at
			// once, so the dialog opens in the step that entered the
			// state. It takes no transition until the person answers.
			cmd := r.startStep()
			r.notice = why
			return cmd
		}
		return nil
	}
	return r.startStep()
}

// idle reports whether the run has nothing to do until a new request.
func (r *runView) idle() bool {
	return !r.busy && r.live.state == loop.WaitingForEvent && r.live.queued == 0
}

// shouldStop decides whether a run ends after transition t, on which hit
// is the breakpoint that began to match (nil for none), and says why.
func (r *runView) shouldStop(t loop.Transition, hit *breakpoint.Hit) (bool, string) {
	idle := t.To == loop.WaitingForEvent && t.QueueLen == 0
	l := r.lang
	done := l.T("idle — the answer is in History; enter (or /) to type the next request")
	if t.Edge == loop.EdgeReported {
		done = l.T("halted — History says why; enter (or /) to type a new request")
	}
	switch {
	case r.mode == runOne:
		switch {
		case hit != nil:
			return true, r.breakMatched(*hit, t)
		case idle:
			return true, done
		}
		return true, ""
	case r.pauseAsked:
		return true, l.T("paused: space steps, i runs an iteration, c continues")
	case hit != nil:
		return true, r.breakStopped(*hit, t)
	case idle:
		return true, done
	case r.mode == runIteration && t.Edge == loop.EdgeContextReady && r.runSteps > 1:
		return true, l.F("iteration %d begins: the request is assembled (space sends it)", t.Iteration)
	case r.mode == runIteration && r.runModal:
		return true, l.T("stopped after the person answered (i runs on, c continues)")
	}
	return false, ""
}

// handlePersonRequest opens the confirmation or question dialog for the step
// in flight. The step waits until the dialog is answered.
func (r *runView) handlePersonRequest(req *personRequest) tea.Cmd {
	if r.stepCtx != nil && r.stepCtx.Err() != nil {
		// The step was cancelled as the request arrived: nobody waits for it.
		req.dismiss()
		return r.await()
	}
	r.runModal = true
	r.hidden = false
	guard := ""
	if r.runKey == "n" {
		guard = "n"
	}
	switch {
	case req.confirm != nil:
		r.confirm = newConfirmModal(req, guard)
	case req.question != nil:
		r.ask = newAskModal(req, guard, r.lang)
	default:
		req.dismiss()
		return r.await()
	}
	return nil
}

// answered closes the dialog and goes back to waiting for the step.
func (r *runView) answered() tea.Cmd {
	r.confirm, r.ask, r.hidden = nil, nil, false
	r.live.cursor = -1 // the answer moves the run on: show the present again
	return r.await()
}

// waitsForPerson reports whether the run's step is stopped on a dialog.
func (r *runView) waitsForPerson() bool { return r.confirm != nil || r.ask != nil }

// dialogShown reports whether the run's dialog is on screen (open, not hidden).
func (r *runView) dialogShown() bool { return r.waitsForPerson() && !r.hidden }

// interrupt cancels the step in flight; it reports whether there was one.
func (r *runView) interrupt() (bool, tea.Cmd) {
	if !r.busy {
		return false, nil
	}
	r.cancelStep()
	r.mode = runOne
	r.notice = r.lang.T("cancelling…")
	if r.waitsForPerson() {
		// The step stops waiting for the person; collect its result.
		return true, r.answered()
	}
	return true, nil
}

// followShown has the Raw payload follow the step the panes show now.
func (r *runView) followShown() {
	if s := r.live.selected(); s != nil {
		r.payload.follow(&s.t)
	}
}

// shownState is the state the diagram lights: the selected step's target,
// or the engine's state now.
func (r *runView) shownState() (loop.State, *loop.Transition) {
	if s := r.live.selected(); s != nil && r.live.travelling() {
		return s.t.To, &s.t
	}
	if s := r.live.selected(); s != nil {
		return r.live.state, &s.t
	}
	return r.live.state, nil
}

// submitCmd queues ev in the run's engine, in a command (the engine writes
// it to the session file). The run counts it as queued at once; a step
// started before the engine has it waits for it (see stepCmd), and events
// go in in the order they were sent.
func (r *runView) submitCmd(ev loop.Event) tea.Cmd {
	r.live.queued++
	eng, before, done := r.eng, r.submitted, make(chan struct{})
	r.submitted = done
	return func() tea.Msg {
		if before != nil {
			<-before
		}
		eng.Submit(ev)
		close(done)
		return nil
	}
}
