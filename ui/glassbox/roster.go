package glassbox

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
)

// A glass box served in a room (glassbox serve) tells the room about itself
// — its Seat: lesson, state, predictions, health — and the instructor's
// glass box shows the room (R: the roster). Both go through Room.

// Room is what a glass box served in a room is given beyond its runs.
type Room struct {
	// Scores are the learner's predict scores per lesson ("" is a request
	// of their own), as the room kept them from their last connection.
	Scores map[string]Score
	// Handout, when set, is where the learner can fetch the handout X
	// wrote at path (a URL shown on their screen), or why not. It is
	// called off the UI's goroutine.
	Handout func(path string) (string, error)
	// Roster, when set, is the room now: the instructor's R shows it. It
	// is read at every frame while the roster is open, so it must be quick.
	Roster func() Roster
	// Leaving, when set, is told how the instructor leaves a room with
	// people in it (q asks, saying how many and what happens to them):
	// keep true, the room goes on serving without their glass box; false,
	// it ends for everyone. It is called on the UI's goroutine, just
	// before the glass box quits; a quit without it (ctrl+c) ends the room.
	Leaving func(keep bool)
	// Notes, when set, brings what the room has to tell the instructor
	// while it is served (it grew past what the machine was measured to
	// carry): each is said on the notice line and in History.
	Notes <-chan string
}

// Score is predictions right out of predictions made.
type Score struct {
	Right int `json:"right"`
	Total int `json:"total"`
}

func (s Score) String() string { return fmt.Sprintf("%d/%d", s.Right, s.Total) }

// Prediction is a learner's latest prediction: the step it was for, the
// edge they chose and, once the step has run, the edge the loop took.
type Prediction struct {
	Lesson string     // the lesson scored ("" a request of their own)
	Step   int        // the step's number, counted from 1 as in the trace
	From   loop.State // the state it was predicted from
	Edge   loop.Edge  // the edge chosen
	Took   loop.Edge  // the edge the loop took; "" while the step runs (or it did not complete)
}

// Seat is what a served glass box tells the room about itself. It holds no
// file, request or payload of the learner's.
type Seat struct {
	Lesson     string           // the lesson being scored ("" their own request)
	State      loop.State       // where their run is now
	Step       int              // the number of the last step taken (0: none)
	Predicting bool             // predict mode is on
	Scores     map[string]Score // per lesson
	Last       Prediction       // their latest prediction (Step 0: none yet)
	// The run's health (loop.Health): model calls, retries, failures fed
	// back, time per call.
	Calls, Retries, Failures int
	P50, Max                 time.Duration
}

// Score is the score of the lesson being scored.
func (s Seat) Score() Score { return s.Scores[s.Lesson] }

// Equal reports whether two seats say the same.
func (s Seat) Equal(o Seat) bool {
	return s.Lesson == o.Lesson && s.State == o.State && s.Step == o.Step && s.Predicting == o.Predicting &&
		s.Last == o.Last && s.Calls == o.Calls && s.Retries == o.Retries && s.Failures == o.Failures &&
		s.P50 == o.P50 && s.Max == o.Max && maps.Equal(s.Scores, o.Scores)
}

// Seat is this glass box's seat in the room: its first run (a served glass
// box has one).
func (m *Model) Seat() Seat { return m.room.seat() }

// seat is the first run's seat in the room, with predict mode's score.
func (c *roomController) seat() Seat {
	r := c.stepper.runs[0]
	h := r.live.health
	p := c.predict
	s := Seat{
		Lesson: p.lesson, State: r.live.state, Predicting: p.on,
		Scores: maps.Clone(p.scores), Last: p.last,
		Calls: h.Calls, Retries: h.Retries, P50: h.P50, Max: h.Max,
	}
	if n := len(r.live.steps); n > 0 {
		s.Step = r.live.steps[n-1].t.Seq
	}
	for _, n := range h.Failures {
		s.Failures += n
	}
	return s
}

// Roster is the room as the instructor sees it.
type Roster struct {
	Learners  []Seated // the learners connected now, by name
	Following int      // connections following the instructor
}

// Seated is one connected learner.
type Seated struct {
	Name string
	Seat Seat
}

// AnswerGroup is the room's answers for one step: the learners whose latest
// prediction was for step Step of lesson Lesson, from state From, and how
// many chose each edge the table allows from From.
type AnswerGroup struct {
	Lesson  string
	Step    int
	From    loop.State
	Chose   map[loop.Edge]int
	Took    map[loop.Edge]int // how many of those steps took each edge (their steps have run)
	Answers int
}

// Answers groups the learners' latest predictions by step: lesson, step
// number and the state predicted from. The group most learners are in
// comes first; ties by lesson, then step.
func (r Roster) Answers() []AnswerGroup {
	type at struct {
		lesson string
		step   int
		from   loop.State
	}
	groups := map[at]*AnswerGroup{}
	for _, l := range r.Learners {
		p := l.Seat.Last
		if p.Step == 0 {
			continue
		}
		k := at{p.Lesson, p.Step, p.From}
		g := groups[k]
		if g == nil {
			g = &AnswerGroup{Lesson: p.Lesson, Step: p.Step, From: p.From, Chose: map[loop.Edge]int{}, Took: map[loop.Edge]int{}}
			groups[k] = g
		}
		g.Answers++
		g.Chose[p.Edge]++
		if p.Took != "" {
			g.Took[p.Took]++
		}
	}
	out := make([]AnswerGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b AnswerGroup) int {
		return cmp.Or(b.Answers-a.Answers, cmp.Compare(a.Lesson, b.Lesson), a.Step-b.Step, cmp.Compare(a.From, b.From))
	})
	return out
}

// rosterDialog is R in the instructor's glass box: the room, read-only and
// live (drawn anew whenever the room changes).
type rosterDialog struct {
	*kit
	roster func() Roster // Room.Roster
	top    scroller
	w, h   int // the box it was last given (fit)
}

type rosterKeys struct{ Up, Down, PageUp, PageDown, Close key.Binding }

func newRosterKeys(l lang.Lang) rosterKeys {
	return rosterKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", l.T("scroll"))),
		Down:     key.NewBinding(key.WithKeys("down", "j")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d")),
		Close:    key.NewBinding(key.WithKeys("esc", "R", "q"), key.WithHelp("esc/R", l.T("close the roster"))),
	}
}

func (k rosterKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Up, k.Close} }
func (k rosterKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// openRoster is R.
func (c *roomController) openRoster() action {
	if c.cfg.Room == nil || c.cfg.Room.Roster == nil {
		return say(c.who.Refusal(c.lang, role.Roster, c.whom))
	}
	return action{open: &rosterDialog{kit: c.kit, roster: c.cfg.Room.Roster}}
}

func (d *rosterDialog) update(msg tea.KeyMsg) action {
	k := newRosterKeys(d.lang)
	if key.Matches(msg, k.Close) {
		return action{close: d}
	}
	d.top.key(msg, scrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown}, 10)
	// The offset is settled here, against the room as it is now; a room
	// that shrinks before the next key shows its last page (window).
	if d.w > 0 {
		d.top.clamp(len(rosterLines(d.kit, d.roster(), d.w)), d.h-1)
	}
	return action{}
}

// fit is the box the roster is drawn in now (w×h inside its frame).
func (d *rosterDialog) fit(w, h int) { d.w, d.h = w, h }

func (d *rosterDialog) keys() help.KeyMap { return newRosterKeys(d.lang) }

func (d *rosterDialog) box(w, h int) (string, []string) {
	lines := rosterLines(d.kit, d.roster(), w)
	if len(lines) > h {
		lines = append(d.top.window(lines, h-1), d.th.Muted.Render(d.lang.T("↑/↓ scroll the roster")))
	}
	return d.lang.T("Room"), lines
}

// rosterLines draws the roster at width w: one line per learner, then the
// room's answers for the step each group of learners is on.
func rosterLines(kt *kit, r Roster, w int) []string {
	th, l := kt.th, kt.lang
	cut := func(s string) string { return ansi.Truncate(s, w, "…") }
	head := l.F("%d learner%s connected", len(r.Learners), plural(len(r.Learners)))
	if r.Following > 0 {
		head += l.F(" · %d following you", r.Following)
	}
	out := []string{
		th.Bold.Render(cut(head)),
		th.Muted.Render(cut(l.T("live and read-only: no learner's files or requests are shown here"))),
		"",
	}
	if len(r.Learners) > 0 {
		out = append(out, th.Muted.Render(cut(rosterRow(l.T("name"), l.T("lesson"), "#", l.T("now at"), l.T("score"), l.T("calls"), l.T("retries"), l.T("fails"), "p50", "max"))))
	}
	for _, who := range r.Learners {
		s := who.Seat
		pred := "—"
		if s.Predicting || s.Score().Total > 0 {
			pred = s.Score().String()
		}
		p50, most := "—", "—"
		if s.Calls > 0 {
			p50, most = shortDuration(s.P50), shortDuration(s.Max)
		}
		out = append(out, cut(rosterRow(
			who.Name, lessonLabel(l, s.Lesson), stepLabel(s.Step), string(s.State), pred,
			strconv.Itoa(s.Calls), strconv.Itoa(s.Retries), strconv.Itoa(s.Failures), p50, most)))
	}
	out = append(out, "", th.Bold.Render(cut(l.T("The room's answers"))))
	groups := r.Answers()
	if len(groups) == 0 {
		return append(out, th.Muted.Render(cut(l.T("no predictions yet: learners in predict mode (P) answer before each step"))))
	}
	out = append(out, th.Muted.Render(cut(l.T("each learner's latest prediction, grouped by lesson · step · the state it was made from"))))
	for _, g := range groups {
		out = append(out, "", cut(l.F("%s · step %d from %s — %d answer%s", lessonLabel(l, g.Lesson), g.Step, g.From, g.Answers, plural(g.Answers))))
		for _, a := range edgesFrom(g.From) {
			n := g.Chose[a.Edge]
			bar := strings.Repeat("█", min(n, 30))
			line := fmt.Sprintf("  %-19s %3d %s", a.Edge, n, bar)
			if t := g.Took[a.Edge]; t > 0 {
				line += th.Success.Render(l.F("  ✓ the loop took it (%d)", t))
			}
			out = append(out, cut(line))
		}
	}
	return out
}

// rosterColumns are the widths of the roster's columns in cells (96 with
// the gaps, the overlay's width); a negative width aligns to the right.
var rosterColumns = []int{10, 11, -4, 26, 7, -5, -7, -5, -6, -6}

// rosterRow is a line of the roster's table: each cell cut or padded to its
// column's width in terminal cells (a Japanese name is two cells a
// character).
func rosterRow(cells ...string) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := rosterColumns[i]
		right := w < 0
		w = max(w, -w)
		c = ansi.Truncate(c, w, "…")
		pad := strings.Repeat(" ", w-ansi.StringWidth(c))
		if right {
			b.WriteString(pad + c)
		} else {
			b.WriteString(c + pad)
		}
	}
	return b.String()
}

func lessonLabel(l lang.Lang, lesson string) string {
	if lesson == "" {
		return l.T("own request")
	}
	return lesson
}

func stepLabel(n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("#%d", n)
}

// shortDuration is a call time as the roster shows it: "840ms", "2.3s".
func shortDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
