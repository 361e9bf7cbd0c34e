package glassbox

import (
	"fmt"
	"maps"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/diagram"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Predict mode: before each step the learner picks the edge they expect,
// from those the loop's own table (loop.Table) allows from the current
// state; the step runs and History says right or wrong, with a one-line
// reason. A state with one way out, and the person's own answer to a
// confirmation, are not asked. The score is kept per lesson.

// predictController is predict mode: the predictions of the glass box (one
// run; compare mode has none), each lesson's score, and the question asked
// before a step (predictDialog).
type predictController struct {
	*kit
	stepper *stepper
	on      bool
	lesson  string           // what is scored: a lesson's name, or "" for the learner's own request
	scores  map[string]Score // per lesson; a served learner's survive a reconnect (Room.Scores)
	pending loop.Edge        // the edge picked for the step in flight, or ""
	last    Prediction       // the latest prediction, for the room's roster
}

// newPredictController sets predict mode up as the glass box opens: on with
// --predict (not in compare mode, nor for a follower), scoring the first
// lesson, with the scores a served learner had before.
func newPredictController(kt *kit, s *stepper, cfg Config) *predictController {
	c := &predictController{kit: kt, stepper: s, lesson: cfg.Lesson, scores: map[string]Score{}}
	c.on = cfg.Predict && !s.compare() && cfg.Follow == nil
	if cfg.Room != nil {
		maps.Copy(c.scores, cfg.Room.Scores)
	}
	c.sync()
	return c
}

// score is the score of the lesson being scored.
func (c *predictController) score() Score { return c.scores[c.lesson] }

// line is the status bar's segment value: "2/3 tour".
func (c *predictController) line() string {
	what := c.lesson
	if what == "" {
		what = c.lang.T("your request")
	}
	return fmt.Sprintf("%s %s", c.score(), what)
}

// edgesFrom are the edges loop.Table allows from s, in table order.
func edgesFrom(s loop.State) []loop.Arc {
	var out []loop.Arc
	for _, a := range loop.Table {
		if a.From == s {
			out = append(out, a)
		}
	}
	return out
}

// toggle is P.
func (c *predictController) toggle() action {
	if c.stepper.compare() {
		return say(c.lang.T("predict mode is for one run (not compare mode)"))
	}
	c.on = !c.on
	c.sync()
	if c.on {
		return say(c.lang.T("predict mode on: space asks which edge you expect before each step (P turns it off)"))
	}
	return say(c.lang.F("predict mode off: %s", c.line()))
}

// sync puts the score on the run's status bar.
func (c *predictController) sync() {
	for _, r := range c.stepper.runs {
		r.predict = ""
		if c.on {
			r.predict = c.line()
		}
	}
}

// key intercepts the stepping keys in predict mode. It reports whether it
// handled msg.
func (c *predictController) key(msg tea.KeyMsg) (action, bool) {
	if !c.on || c.stepper.compare() {
		return action{}, false
	}
	k := c.keys
	r := c.stepper.runs[0]
	switch {
	case key.Matches(msg, k.Iteration, k.Continue):
		return say(c.lang.T("predict mode: space steps one transition and asks for your prediction first (P turns predict mode off)")), true
	case !key.Matches(msg, k.Step):
		return action{}, false
	case r.busy || r.forking || r.eng == nil:
		return action{}, false // the step's own message says why it cannot
	}
	state := r.live.state
	arcs := edgesFrom(state)
	if len(arcs) < 2 || state == loop.AwaitingUserConfirmation || (state == loop.WaitingForEvent && r.live.queued == 0) {
		return action{}, false // one way out, the person's own answer, or nothing to take: no question
	}
	return action{open: &predictDialog{c: c, from: state, arcs: arcs, key: msg.String()}}, true
}

// predicted scores the step that just ended against the edge picked.
func (c *predictController) predicted(r *runView, err error) {
	want := c.pending
	c.pending = ""
	if want == "" {
		return
	}
	if err != nil || len(r.live.steps) == 0 {
		r.history.note(c.lang.F("prediction %s not scored: the step did not complete", want))
		return
	}
	t := r.live.steps[len(r.live.steps)-1].t
	c.last.Took = t.Edge
	sc := c.score()
	sc.Total++
	if t.Edge == want {
		sc.Right++
	}
	c.scores[c.lesson] = sc
	if t.Edge == want {
		r.history.note("✓ " + c.lang.F("predicted %s — right: %s  [%s]", want, edgeReason(c.lang, t), c.line()))
	} else {
		r.history.note("✗ " + c.lang.F("predicted %s — the loop took %s: %s  [%s]", want, t.Edge, edgeReason(c.lang, t), c.line()))
	}
	c.sync()
}

// scoreLesson scores what was just sent: each lesson keeps its own score
// (sent again, it goes on from it); a request of the learner's own ("") is
// scored as "your request".
func (c *predictController) scoreLesson(name string) {
	c.lesson = name
	c.sync()
}

// edgeReason is the one-line reason a step took its edge, from its record.
func edgeReason(l lang.Lang, t loop.Transition) string {
	switch t.Edge {
	case loop.EdgeToolCall:
		return l.F("the model asked for a tool: %s", toolNames(t))
	case loop.EdgeMalformedResponse:
		return withError(t, l.T("the reply could not be read as a tool call or an answer"))
	case loop.EdgeLLMFailure:
		return withError(t, l.T("the provider failed"))
	case loop.EdgeToolFailure:
		return withError(t, l.T("the tool failed"))
	case loop.EdgeAllow, loop.EdgeDeny, loop.EdgeConfirmRequired:
		if d := t.Decision; d != nil {
			return l.F("rule %s: %s", d.Rule, ruleReason(l, d.Reason))
		}
	}
	return plainEdgeReason(l, t)
}

// plainEdgeReason is the reason of an edge whose record adds nothing to it;
// any other edge is explained by the state it leads to.
func plainEdgeReason(l lang.Lang, t loop.Transition) string {
	switch t.Edge {
	case loop.EdgeNewEvent:
		return l.T("an event was waiting in the queue")
	case loop.EdgeContextReady:
		return l.T("the context is assembled and the iteration limit is not reached")
	case loop.EdgeMaxIterations:
		return l.T("the event used up its model calls (the iteration limit)")
	case loop.EdgeFinalAnswer:
		return l.T("the model answered in text, with no tool call")
	case loop.EdgeToolSuccess:
		return l.T("the tool ran and returned its result")
	case loop.EdgeNextToolCall:
		return l.T("the reply has another tool call waiting")
	case loop.EdgeObserved:
		return l.T("every tool call of the reply is done: back to the model")
	}
	return diagram.Explain(l, t.To)
}

// withError adds the step's error message, when it has one, to a reason.
func withError(t loop.Transition, reason string) string {
	if t.Error != nil {
		return reason + ": " + t.Error.Message
	}
	return reason
}

// toolNames are the tools the step's model call asked for, comma-separated.
func toolNames(t loop.Transition) string {
	if t.LLM == nil {
		return ""
	}
	var names []string
	for _, c := range t.LLM.ToolCalls {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// predictDialog asks for the edge the learner expects.
type predictDialog struct {
	c    *predictController
	from loop.State
	arcs []loop.Arc
	sel  int
	key  string // the stepping key that opened it
}

// predictKeys are the dialog's keys.
type predictKeys struct{ Up, Down, Pick, Number, Close key.Binding }

func (predictKeys) ShortHelp() []key.Binding  { return nil }
func (predictKeys) FullHelp() [][]key.Binding { return nil }

func newPredictKeys(l lang.Lang) predictKeys {
	return predictKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", l.T("up"))),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", l.T("down"))),
		Pick:   key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter", l.T("predict it and step"))),
		Number: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", l.T("pick"))),
		Close:  key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", l.T("not now (no step)"))),
	}
}

type predictHelp struct{ k predictKeys }

func (h predictHelp) ShortHelp() []key.Binding {
	return []key.Binding{h.k.Number, h.k.Up, h.k.Down, h.k.Pick, h.k.Close}
}
func (h predictHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

func (d *predictDialog) update(msg tea.KeyMsg) action {
	c := d.c
	k := newPredictKeys(c.lang)
	pick := -1
	switch {
	case key.Matches(msg, k.Close):
		return action{close: d, notice: c.lang.T("no prediction, no step (P turns predict mode off)")}
	case key.Matches(msg, k.Up):
		d.sel = max(d.sel-1, 0)
	case key.Matches(msg, k.Down):
		d.sel = min(d.sel+1, len(d.arcs)-1)
	case key.Matches(msg, k.Pick):
		pick = d.sel
	case key.Matches(msg, k.Number):
		if i := int(msg.Runes[0] - '1'); i < len(d.arcs) {
			pick = i
		}
	}
	if pick < 0 {
		return action{}
	}
	c.pending = d.arcs[pick].Edge
	c.last = Prediction{Lesson: c.lesson, Step: c.stepper.runs[0].live.nextSeq(), From: d.from, Edge: c.pending}
	return action{close: d, notice: c.lang.F("you predict %s — stepping", c.pending), step: &stepOrder{runOne, d.key}}
}

func (d *predictDialog) box(w, h int) (string, []string) {
	th, l := d.c.th, d.c.lang
	out := []string{
		th.Bold.Render(l.F("Which edge will the loop take from %s?", d.from)),
		th.Muted.Render(ansi.Truncate(diagram.Explain(l, d.from), w, "…")),
		"",
	}
	for i, a := range d.arcs {
		line := fmt.Sprintf("  %d) %-19s → %s", i+1, a.Edge, a.To)
		if i == d.sel {
			line = th.Selected.Render(ansi.Truncate("›"+line[1:], w, "…"))
		}
		out = append(out, ansi.Truncate(line, w, "…"))
	}
	hk := d.c.help
	hk.Width = w
	out = append(out, "", th.Muted.Render(l.F("score %s", d.c.line())), hk.ShortHelpView(predictHelp{newPredictKeys(l)}.ShortHelp()))
	return l.T("Predict"), out
}

func (d *predictDialog) keys() help.KeyMap { return predictHelp{newPredictKeys(d.c.lang)} }
