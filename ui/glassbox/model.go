package glassbox

import (
	"context"
	"errors"
	"slices"

	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// runMode is how far the loop runs on its own after a keypress.
type runMode int

const (
	runOne       runMode = iota // one transition (space / n)
	runIteration                // to the next context_ready (i)
	runContinue                 // until idle, a breakpoint or a pause (c)
)

// Model is the glass box: a tea.Model. Build it with New; Run wraps it in a
// full-screen program.
//
// It routes, lays out and composes. Its children are the runs (one; two in
// compare mode), each with its engine and panes, and a controller per
// feature: the stepper (what the keys drive), forks (f, F, A, B, w), the
// room (following, the roster, handouts, a served learner's seat), predict
// mode, the lessons and the welcome, and the status bar (the notice, the key
// help, the bars around the panes). The Model routes each message to the
// child it concerns and applies the action a controller or a dialog answers
// with (apply); it owns only what no child does — the size, the input line
// and which of it or the panes has the keyboard, the dialog stack, the
// spinner.
type Model struct {
	*kit // what everything draws with: theme, language, keys, key help
	cfg  Config

	runs    []*runView // every run, by id
	stepper *stepper   // what the keys drive: the runs acting, the run shown, the pane, the zoom
	strip   *stripPane // compare mode's comparison strip

	width, height int
	ready         bool // a WindowSizeMsg has arrived

	input        textarea.Model
	inputFocused bool
	stack        dialogStack  // the open dialogs, the last on top (see top)
	helpBox      *helpOverlay // the help overlay, opened with ?

	spin        spinner.Model
	animate     bool // spinner ticks; tests turn them off for stable frames
	ticking     bool
	quitPending bool // a ctrl+c cancelled a step; the next one quits

	bar     *statusBar
	forks   *forkController
	room    *roomController
	predict *predictController
	lessons *lessonController
	rosetta *rosettaController
	breaks  *breakController
	tap     *tapController // nil unless the glass box is a tap's
}

// kit is what the panes' frames, the bars and the dialogs draw with and
// answer to: the theme, the language, the keys of the stepper and of each
// dialog (as data: the handlers match them, the help line draws them), and
// bubbles/help with its memo. New makes one; the Model and every controller
// share it.
type kit struct {
	th        theme.Theme
	lang      lang.Lang
	who       role.Role // whose glass box it is: what they may do (ui/role)
	whom      string    // a follower's: whom they follow, in lang ("" otherwise)
	keys      keyMap
	help      help.Model
	drawnHelp *helpMemo // the key help, drawn once per width and keys

	confirmKeys confirmKeys
	askKeys     askKeys
	lessonKeys  lessonKeys
	helpKeys    helpKeys
	quitKeys    quitKeys
	forkKeys    forkKeys
	ontoKeys    ontoKeys
	breakKeys   breakKeys
}

// newKit is the kit for a person in role who, in language l and theme th.
func newKit(l lang.Lang, th theme.Theme, who role.Role) *kit {
	k := &kit{
		th:         th,
		lang:       l,
		who:        who,
		keys:       newKeyMap(l, who),
		help:       help.New(),
		drawnHelp:  &helpMemo{},
		askKeys:    newAskKeys(l),
		lessonKeys: newLessonKeys(l),
		quitKeys:   newQuitKeys(l),
		forkKeys:   newForkKeys(l),
		ontoKeys:   newOntoKeys(l),
		breakKeys:  newBreakKeys(l),
	}
	k.confirmKeys, k.helpKeys = newConfirmKeys(k.keys), newHelpKeys(k.keys)
	k.help.Styles.ShortKey = th.StatusKey
	k.help.Styles.FullKey = th.StatusKey
	k.help.Styles.ShortDesc = th.Help
	k.help.Styles.FullDesc = th.Help
	k.help.Styles.ShortSeparator = th.Help
	k.help.Styles.FullSeparator = th.Help
	k.help.Styles.Ellipsis = th.Help // help's own default is grey, even with NO_COLOR
	return k
}

// openRun hands run r the glass box's hooks and its past: a resumed
// session's steps (through the room when they are another's: a
// follower's, a tap's), and its notes.
func (m *Model) openRun(r *runView, rc RunConfig) {
	cfg := m.cfg
	r.disk.path = cfg.Session
	r.observe, r.observeWire, r.status, r.telemetry = cfg.OnTransition, cfg.OnWire, cfg.Status, cfg.Telemetry
	if m.tap != nil {
		r.tapStatus, r.live.outside = m.tap.status, true
	}
	if cfg.Follow != nil || cfg.Tap != nil {
		for _, t := range rc.Past {
			m.room.record(r, t)
		}
		rc.Past = nil
	}
	r.loadPast(rc.Past)
	for _, n := range rc.Notes {
		r.history.note(n)
	}
	if n := len(rc.Past); n > 0 {
		m.lessons.sent = true // a resumed session is past its first request
		r.history.note(cfg.Lang.F(
			"resumed: the %d step%s above %s the session's past ([ and ] move through them, f forks from one); space goes on from step #%d", n, plural(n), isAre(n), rc.Past[n-1].Seq))
	}
}

// New builds the UI around cfg's engine (or cfg.Runs' engines). It reads
// each engine's current state and history (a resumed session shows what it
// already holds), so call it before any Step runs.
func New(cfg Config) *Model {
	kt := newKit(cfg.Lang, theme.New(cfg.NoColor), cfg.role())
	if cfg.Follow != nil {
		kt.whom = cfg.Lang.Dyn(cfg.Follow.Who)
	}
	m := &Model{kit: kt, cfg: cfg, animate: true}
	runs := cfg.Runs
	if len(runs) == 0 {
		runs = []RunConfig{{Engine: cfg.Engine, Person: cfg.Person, Backend: cfg.Backend,
			BackendReason: cfg.BackendReason, BackendWhy: cfg.BackendWhy, Banner: cfg.Banner, Workspace: cfg.Workspace}}
	}
	for i, rc := range runs {
		r := newRunView(i, rc, cfg.Lang)
		for _, b := range cfg.Breakpoints {
			r.breaks.Add(b)
		}
		m.runs = append(m.runs, r)
	}
	m.stepper = &stepper{runs: m.runs, lang: cfg.Lang, run: -1}
	m.strip = &stripPane{runs: m.runs}
	m.helpBox = &helpOverlay{kit: kt, stepper: m.stepper}
	m.bar = &statusBar{kit: kt, stepper: m.stepper, resume: cfg.Resume}
	m.predict = newPredictController(kt, m.stepper, cfg)
	m.room = &roomController{kit: kt, stepper: m.stepper, cfg: cfg, predict: m.predict}
	m.breaks = &breakController{kit: kt, stepper: m.stepper}
	m.forks = &forkController{kit: kt, stepper: m.stepper, dialects: cfg.Dialects, exec: tea.ExecProcess}
	m.lessons = &lessonController{kit: kt, stepper: m.stepper, lessons: cfg.Lessons, name: cfg.Lesson, sandbox: cfg.Sandbox}
	m.rosetta = &rosettaController{kit: kt, stepper: m.stepper}
	if cfg.Tap != nil {
		m.tap = &tapController{kit: kt, stepper: m.stepper, room: m.room, src: cfg.Tap.Source, now: time.Now}
		m.lessons.intro = cfg.Tap.Intro
		m.tap.syncBreaks()
	}
	m.input = newInput(kt.th)
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(kt.th.Warning))
	m.lessons.addWelcome()
	for i, r := range m.runs {
		m.openRun(r, runs[i])
	}
	// The past now lives in the runs' own records: the model keeps no
	// second list of a long session's steps.
	m.cfg.Runs = slices.Clone(m.cfg.Runs)
	for i := range m.cfg.Runs {
		m.cfg.Runs[i].Past = nil
	}
	m.firstScreen(runs[0].Notes)
	m.fitPlaceholder()
	if m.stepper.compare() {
		m.stepper.pane = panePayload // the raw payloads are what compare mode is for
	}
	return m
}

// firstScreen is where a glass box opens: the welcome said again for what
// is on offer, the keyboard where the first move is, History at the
// welcome's first line and the front end's notes on the notice line.
func (m *Model) firstScreen(notes []string) {
	m.lessons.refreshWelcome() // a resumed session offers no first lesson
	// The keyboard starts where the first move is: the input line for a
	// new request; the stepper for a resumed session (History says "space
	// goes on from step #N") and for a follower (nothing to send).
	m.inputFocused = m.who.May(role.Send) && !m.lessons.sent
	if m.inputFocused {
		m.input.Focus()
	}
	if !m.lessons.sent {
		for _, r := range m.runs {
			r.history.opening() // the first screen starts at the welcome's first line
		}
		m.bar.notice = openingNotice(m.lang, notes)
	}
}

// openingNotice is what the front end had to say before anything happened
// (a score not used, a session recovered), for the notice line: History
// opens at the welcome, above those notes, so the first screen says them
// there too.
func openingNotice(l lang.Lang, notes []string) string {
	switch len(notes) {
	case 0:
		return ""
	case 1:
		return notes[0]
	}
	return l.F("%s (and %d more notes under the welcome)", notes[0], len(notes)-1)
}

// sameSession gives every run that writes r's session r's measurement of
// it: compare mode's runs write one session, so no screen shows two sizes.
func sameSession(runs []*runView, r *runView, msg sessionSizeMsg) {
	for _, o := range runs {
		if o != r && msg.err == nil && o.disk.path != "" && o.disk.path == r.disk.path {
			o.live.sized(msg.bytes)
			o.disk.at = r.disk.at
		}
	}
}

// newInput is the input line: Enter sends, alt+enter or ctrl+j breaks the
// line (v1 has no shift+enter).
func newInput(th theme.Theme) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	ta.SetHeight(1)
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.FocusedStyle.CursorLine = ta.FocusedStyle.CursorLine.UnsetBackground()
	ta.FocusedStyle.Prompt = th.Bold
	ta.BlurredStyle.Prompt = th.Muted
	ta.FocusedStyle.Placeholder = th.Muted
	ta.BlurredStyle.Placeholder = th.Muted
	// Every style from the theme, none of textarea's built-in greys: with
	// NO_COLOR the input must carry no colour either.
	ta.FocusedStyle.Text = lipgloss.NewStyle()
	ta.BlurredStyle.Text = th.Muted
	ta.BlurredStyle.CursorLine = th.Muted
	for _, st := range []*textarea.Style{&ta.FocusedStyle, &ta.BlurredStyle} {
		st.EndOfBuffer, st.LineNumber, st.CursorLineNumber = th.Muted, th.Muted, th.Muted
	}
	return ta
}

// Init starts nothing but reading back, for a resumed session, the payload
// of the step shown and the anatomy of its past model calls, and measuring
// the session's size: the learner types first. A follower starts listening to the run it follows; a glass box
// with a status segment, to what changes it.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.stepper.fetchPayloads(), m.room.followCmd(), m.room.changedCmd(), m.room.notesCmd(), m.tap.cmd()}
	for _, r := range m.runs {
		cmds = append(cmds, r.disk.measure(r.id, true)) // for the health line
		cmds = append(cmds, r.live.book.readPast(r.id, r.live, r.store.load), r.pendingPreview())
		if r.listens {
			cmds = append(cmds, r.busCmd()) // requests from outside, any time
		}
	}
	return tea.Batch(cmds...)
}

// Update routes each message to the child it concerns: the key router, the
// layout, the run a step message names, the controller of a feature.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m, m.handleResize(msg)
	case tea.KeyMsg:
		cmd := m.handleKey(msg)
		m.tap.syncBreaks() // b or K may have changed what a tap holds
		return m, cmd
	case tea.MouseMsg:
		return m, m.handleMouse(msg)
	case forkDoneMsg: // it names its run, but the fork controller takes it
		return m, m.apply(m.forks.done(msg))
	case runMsg:
		return m, m.handleRunMsg(msg)
	}
	return m, m.apply(m.feature(msg))
}

// feature routes a message of a feature's own to its controller, or, while
// the input line has the keyboard, to the input (the cursor's blink).
func (m *Model) feature(msg tea.Msg) action {
	switch msg := msg.(type) {
	case whatIfReadyMsg:
		return m.forks.ready(msg)
	case rosettaMsg:
		return m.rosetta.built(msg)
	case busArrivedMsg:
		return m.busArrived(msg)
	case busCallMsg:
		return say(m.lang.F("the lesson's request could not be sent over the MCP bus: %v", msg.err))
	case NoticeMsg:
		return say(string(msg))
	case followMsg:
		return m.room.followed(msg)
	case roomNoteMsg:
		return m.room.noted(msg)
	case tapMsg:
		return m.tap.tapped(msg)
	case tapTickMsg:
		return m.tap.ticked()
	case tapEditedMsg:
		return m.tap.edited(msg)
	case changedMsg:
		return action{cmd: m.room.changedCmd()} // the frame is drawn again: Config.Status is read anew
	case spinner.TickMsg:
		return action{cmd: m.turnSpinner(msg)}
	}
	if m.inputFocused {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return action{cmd: cmd}
	}
	return action{}
}

// turnSpinner turns the spinner while a step works; it stops ticking when none
// does (or animation is off).
func (m *Model) turnSpinner(msg spinner.TickMsg) tea.Cmd {
	if !m.stepper.busy() || !m.animate {
		m.ticking = false
		return nil
	}
	var cmd tea.Cmd
	m.spin, cmd = m.spin.Update(msg)
	return cmd
}

// handleRunMsg routes a message from a run's step to that run, then lets
// the panes follow what the step did.
func (m *Model) handleRunMsg(msg runMsg) tea.Cmd {
	id := msg.runID()
	if id < 0 || id >= len(m.runs) {
		return nil
	}
	r := m.runs[id]
	if p, ok := msg.(personRequestMsg); ok && p.req != nil {
		// The person's dialog goes on top; menus opened before it close.
		closeKind[*lessonMenu](&m.stack)
		closeKind[*helpOverlay](&m.stack)
	}
	cmd := r.update(msg)
	switch msg := msg.(type) {
	case stepDoneMsg:
		// What the step did supersedes what the last key said
		// ("cancelling…", "pausing…").
		m.bar.notice = ""
		m.predict.predicted(r, msg.err)
		if errors.Is(msg.err, context.Canceled) || errors.Is(msg.err, context.DeadlineExceeded) {
			m.quitPending = true
		}
		m.clampScrolls() // the panes follow what the step did
	case exchangesMsg, previewMsg, pastAnatomyMsg:
		m.clampScrolls()
	case sessionSizeMsg:
		sameSession(m.runs, r, msg)
	}
	if r.busy {
		cmd = tea.Batch(cmd, m.tick())
	}
	return cmd
}

// tick starts the spinner if it is not turning yet.
func (m *Model) tick() tea.Cmd {
	if !m.animate || m.ticking {
		return nil
	}
	m.ticking = true
	return m.spin.Tick
}

// step starts mode on every run the keys act on (stepper.step) and the
// spinner; the key that started it is by.
func (m *Model) step(mode runMode, by string) tea.Cmd {
	m.quitPending = false
	return tea.Batch(append(m.stepper.step(mode, by), m.tick())...)
}

// focusInput gives the keyboard to the input line.
func (m *Model) focusInput() tea.Cmd {
	if !m.who.May(role.Send) {
		m.bar.notice = m.who.Refusal(m.lang, role.Send, m.whom)
		return nil
	}
	m.inputFocused = true
	return m.input.Focus()
}

// focusPane gives the keyboard to pane p (the stepper keys work there).
func (m *Model) focusPane(p paneID) {
	m.inputFocused = false
	m.input.Blur()
	m.stepper.pane = p
}

// busArrived counts the bus's request as queued and tells the person, who
// steps it like any event: the caller waits for the answer.
func (m *Model) busArrived(msg busArrivedMsg) action {
	if msg.run < 0 || msg.run >= len(m.runs) {
		return action{}
	}
	r := m.runs[msg.run]
	r.live.queued++
	if m.inputFocused && m.input.Value() == "" {
		m.focusPane(m.stepper.pane) // nothing typed is lost: the stepper keys work at once
	}
	a := say(m.lang.T("a request arrived from the MCP bus — space takes it (new_event), c runs it to its answer; the caller waits for the answer"))
	if m.inputFocused {
		a.notice = m.lang.T("a request arrived from the MCP bus — esc, then space takes it; the caller waits for the answer")
	}
	if r.listens {
		a.cmd = r.busCmd() // the next request from outside
	}
	return a
}
