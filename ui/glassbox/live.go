package glassbox

import (
	"fmt"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// liveState is the UI's own copy of what the engine has told it through
// Transition records. The engine is never read while a step is in flight;
// View and Update read this instead.
type liveState struct {
	state     loop.State
	iteration int
	// outside: the steps are another agent's, seen by a tap (a user's
	// words are what that agent sent).
	outside bool

	// steps is every transition received, in order: the checkpoints that
	// [ and ] move between.
	steps []stepRecord
	// cursor is the selected step, or -1 to follow the latest one.
	cursor int
	// pinned: every step shown is the past, the latest one too (an
	// abandoned branch on screen, B).
	pinned bool

	totals

	queued int // events waiting in the engine's queue

	// health is the run's health so far (loop.Health): each transition
	// recorded adds to it; a fork or A counts the line that is left again.
	// healthLine is its String, made when it changes, not at every frame.
	health     loop.Health
	healthLine string

	lang lang.Lang // the language of the notes it adds to History

	// book reads each model call's request as its step is recorded
	// (anatomy.go).
	book anatomyBook
}

// totals are the running numbers of the status bar. Each step keeps a copy,
// so a step reached by time travel shows the numbers as they were then.
type totals struct {
	tokensIn, tokensOut int
	lastLatencyMS       int64
	hasLatency          bool

	messages int // messages in the engine's history
	chars    int // their size in characters, for the ~chars/4 token estimate
}

// stepRecord is one received transition and where the History pane stood
// after it.
type stepRecord struct {
	t       loop.Transition
	entries int      // History entries that existed after this transition
	totals  totals   // the status bar's numbers after this transition
	preview *preview // context_ready: the request it assembled, not yet sent

	// spilled: the exchanges were dropped to bound memory and can be read
	// back from the session (loading: on their way; loadErr: they could not).
	spilled, loading bool
	loadErr          string

	// anat is a model call's request read from its bytes (anatomy.go):
	// nil for a step that made no call, and for a resumed run's past call
	// until it is read back.
	anat *callAnatomy
}

func newLiveState(l lang.Lang) *liveState {
	return &liveState{cursor: -1, healthLine: healthText(l, loop.Health{}), lang: l, book: newAnatomyBook()}
}

// stepAt is the step numbered seq, searched from the latest (a zero
// Transition numbered seq when it is not kept).
func (l *liveState) stepAt(seq int) loop.Transition {
	for i := len(l.steps) - 1; i >= 0; i-- {
		if l.steps[i].t.Seq == seq {
			return l.steps[i].t
		}
	}
	return loop.Transition{Seq: seq}
}

// shownTotals are the status bar's numbers for the step the panes show: the
// selected step's when travelling, the latest otherwise.
func (l *liveState) shownTotals() totals {
	if l.travelling() {
		return l.steps[l.selectedIndex()].totals
	}
	return l.totals
}

// selectedIndex is the index of the step the panes show, -1 if none yet.
func (l *liveState) selectedIndex() int {
	if l.cursor >= 0 && l.cursor < len(l.steps) {
		return l.cursor
	}
	return len(l.steps) - 1
}

// selected is the step the panes show, nil before the first transition.
func (l *liveState) selected() *stepRecord {
	i := l.selectedIndex()
	if i < 0 {
		return nil
	}
	return &l.steps[i]
}

// travelling reports whether the panes show an earlier step than the latest.
func (l *liveState) travelling() bool {
	return l.cursor >= 0 && (l.cursor < len(l.steps)-1 || l.pinned)
}

// move shifts the time-travel cursor by delta steps; reaching the latest
// step returns to following it.
func (l *liveState) move(delta int) {
	if len(l.steps) == 0 {
		return
	}
	i := min(max(l.selectedIndex()+delta, 0), len(l.steps)-1)
	if i == len(l.steps)-1 && !l.pinned {
		l.cursor = -1
		return
	}
	l.cursor = i
}

// exchangeStep finds the step whose HTTP exchanges belong with step i: the
// step itself if it made a provider call, else the latest earlier step of the
// same iteration that did (the call that produced these tool calls). It
// returns -1 when this iteration has not called the model yet.
func (l *liveState) exchangeStep(i int) int {
	if i < 0 || i >= len(l.steps) {
		return -1
	}
	it := l.steps[i].t.Iteration
	for j := i; j >= 0; j-- {
		t := &l.steps[j].t
		if t.Iteration != it || t.Edge == loop.EdgeNewEvent {
			break
		}
		if len(t.Exchanges) > 0 || t.LLM != nil {
			return j
		}
		if t.Edge == loop.EdgeContextReady {
			break
		}
	}
	return -1
}

// record takes in one transition: its messages, its output and its numbers.
// called counts a model call's tokens and latency, and puts each retry of
// it in History.
func (l *liveState) called(h *historyPane, c *loop.LLMRecord) {
	l.tokensIn += c.Usage.InputTokens
	l.tokensOut += c.Usage.OutputTokens
	l.lastLatencyMS = c.LatencyMS
	l.hasLatency = true
	for _, r := range c.Retries {
		status := ""
		if r.Status != 0 {
			status = fmt.Sprintf("HTTP %d, ", r.Status)
		}
		h.add(&historyEntry{kind: entryRetry, name: l.lang.F(
			"retry %d: %swaited %d ms, then sent the request again", r.Attempt, status, r.WaitMS), text: r.Reason})
	}
}

// ending adds what History says after a step's messages: that a foreign
// agent's step was inferred, and where the answer went (a foreign agent's
// answer shown to its user is said once, not also as an inferred step).
func (l *liveState) ending(h *historyPane, t loop.Transition) {
	shown := l.outside && t.Inferred != "" && t.Output != nil && !t.Output.Halted
	if t.Inferred != "" && !shown {
		h.add(&historyEntry{kind: entryNote, text: l.lang.F("%s, inferred: %s", t.Edge, l.lang.Dyn(t.Inferred))})
	}
	switch {
	case t.Output == nil:
	case t.Output.Halted:
		h.add(&historyEntry{kind: entryHalt, text: haltText(l.lang, t)})
	case shown:
		h.add(&historyEntry{kind: entryNote, text: l.lang.T("the agent shows its user the answer (inferred: a tap does not see it)")})
	default:
		h.add(&historyEntry{kind: entryNote, text: l.lang.F("answer delivered to %s", t.Output.Target)})
	}
}

func (l *liveState) record(h *historyPane, t loop.Transition) {
	l.state = t.To
	l.iteration = t.Iteration
	l.queued = t.QueueLen
	l.health.Add(t)
	l.healthLine = healthText(l.lang, l.health)
	if t.Event != nil && t.Event.From != "" { // not typed here: say who sent it
		h.add(&historyEntry{kind: entryNote, text: busNote(l.lang, *t.Event)})
	}
	if t.Edit != nil { // the model was sent the messages above as a person edited them
		h.add(&historyEntry{kind: entryEdit, edit: t.Edit})
	}
	if t.LLM != nil {
		l.called(h, t.LLM)
	}
	first := h.len()
	for _, msg := range t.Added {
		l.addMessage(h, msg)
	}
	if t.Event != nil && t.Event.From != "" {
		headBy(h.entries[first:], t.Event.From)
	}
	l.ending(h, t)
	if t.HistoryLen > 0 {
		l.messages = t.HistoryLen - t.Notes // what the model is sent
	}
	l.steps = append(l.steps, stepRecord{t: t, entries: h.len(), totals: l.totals})
	if t.LLM != nil {
		l.steps[len(l.steps)-1].anat = l.book.read(l, len(l.steps)-1)
	}
}

// recount counts the run's health again from the steps on its line, after
// a fork or A cut the later ones (as --stats counts a session's present
// line). The size on disk stays until it is measured again.
func (l *liveState) recount() {
	bytes := l.health.Bytes
	l.health = loop.Health{Bytes: bytes}
	for i := range l.steps {
		l.health.Add(l.steps[i].t)
	}
	l.healthLine = healthText(l.lang, l.health)
}

// sized sets the session's size on disk in the health.
func (l *liveState) sized(n int64) {
	l.health.Bytes = n
	l.healthLine = healthText(l.lang, l.health)
}

// addMessage turns one history message into History entries: the text, the
// model's reasoning, one folded line per tool call or result.
func (l *liveState) addMessage(h *historyPane, msg history.Message) {
	if msg.Role == history.RoleNote { // glassbox's own word (a fork's note): shown, never sent
		h.add(&historyEntry{kind: entryNote, text: msg.Text})
		return
	}
	l.messages++
	l.chars += len(msg.Text) + len(msg.Thought)
	switch msg.Role {
	case history.RoleUser:
		kind := entryUser
		if msg.Feedback {
			kind = entryFeedback
		}
		h.add(&historyEntry{kind: kind, text: msg.Text, outside: l.outside})
	case history.RoleAssistant:
		if strings.TrimSpace(msg.Thought) != "" {
			h.add(&historyEntry{kind: entryThought, text: msg.Thought})
		}
		if strings.TrimSpace(msg.Text) != "" || len(msg.ToolCalls) == 0 {
			h.add(&historyEntry{kind: entryAssistant, text: msg.Text})
		}
		for _, c := range msg.ToolCalls {
			l.chars += len(c.Name) + len(c.Args)
			h.add(&historyEntry{kind: entryCall, name: sanitize(c.Name), text: sanitize(string(c.Args))})
		}
	case history.RoleTool:
		if r := msg.Result; r != nil {
			l.chars += len(r.Content)
			h.add(&historyEntry{kind: entryResult, name: sanitize(r.Name), text: r.Content, isError: r.IsError})
		}
	}
}

// healthText is h on one line (loop.Health.String) in language l. The
// Japanese names each count and keeps the call times and the size as
// loop.Health writes them.
func healthText(l lang.Lang, h loop.Health) string {
	if l != lang.JA {
		return h.String()
	}
	parts := []string{
		l.F("%d calls", h.Calls),
		l.F("%d retries", h.Retries),
		l.F("%d failures fed back", h.FedBack()),
	}
	if h.Calls > 0 {
		parts = append(parts, h.CallTimes())
	}
	parts = append(parts, l.F("tokens %d→%d", h.In, h.Out))
	if h.Bytes > 0 {
		en := h.String()
		parts = append(parts, en[strings.LastIndex(en, " · ")+len(" · "):]) // the size, "48 KB"
	}
	return strings.Join(parts, " · ")
}

// haltText is why the loop halted, for History: the engine's own words
// (the trace's output and error.message). A Japanese screen says first, in
// Japanese, what kind of stop it was; the engine's words follow, as the
// trace has them.
func haltText(l lang.Lang, t loop.Transition) string {
	if l != lang.JA || t.Error == nil {
		return t.Output.Text
	}
	var head string
	switch t.Error.Kind {
	case "max_iterations":
		head = l.T("The iteration limit stopped this event before a final answer (--max-iterations raises it).")
	case "llm_failure":
		head = l.T("The model call failed, so this event stopped. The provider's error:")
	case loop.KindRepeatedFailure:
		head = l.T("Two replies in a row failed the same way, so the loop stopped instead of feeding the failure back again.")
	default:
		return t.Output.Text
	}
	return head + "\n" + t.Output.Text
}

// callSteps lists the indexes of the steps that made a model call, in
// order: call k (1-based) is callSteps()[k-1].
func (l *liveState) callSteps() []int {
	var out []int
	for i := range l.steps {
		if l.steps[i].t.LLM != nil {
			out = append(out, i)
		}
	}
	return out
}

// callAt is the number of the latest model call at or before the step the
// panes show (0 before the first), and whether that step is the call itself.
func (l *liveState) callAt() (k int, exact bool) {
	sel := l.selectedIndex()
	for i, s := range l.callSteps() {
		if s > sel {
			break
		}
		k, exact = i+1, s == sel
	}
	return k, exact
}

// showCall selects the step of model call k, or the present when there have
// been fewer calls.
func (l *liveState) showCall(k int) {
	calls := l.callSteps()
	if k < 1 || k > len(calls) || calls[k-1] == len(l.steps)-1 {
		l.cursor = -1
	} else {
		l.cursor = calls[k-1]
	}
}

// nextSeq is the number the next step will have.
func (l *liveState) nextSeq() int {
	if n := len(l.steps); n > 0 {
		return l.steps[n-1].t.Seq + 1
	}
	return 1
}

// headBy heads the requests among entries by who sent them (the MCP bus's
// client): a request that was not typed here is never "you".
func headBy(entries []*historyEntry, from string) {
	for _, e := range entries {
		if e.kind == entryUser {
			e.name = sanitize(from)
		}
	}
}
