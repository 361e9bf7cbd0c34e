package glassbox

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/rosetta"
	"github.com/glassbox-dev/glassbox/tools"
	anatomycmd "github.com/glassbox-dev/glassbox/ui/anatomy"
	"github.com/glassbox-dev/glassbox/ui/cell"
)

// rosettaController is d: the conversation as it stood at the step on
// screen, as every dialect glassbox speaks would send it — Gemini, OpenAI
// chat completions, Ollama's native tools, Llama's JSON mode — built by
// each dialect's own provider through its SDK (providers/rosetta, in a
// command: nothing is sent) and laid side by side in a dialog, row by row:
// the system prompt, the tool declarations, each turn, with a caption under
// each row and what a dialect cannot carry named on its cell.
type rosettaController struct {
	*kit
	stepper *stepper
}

// rosettaMsg: the table of a run's step, built.
type rosettaMsg struct {
	d   *rosettaDialog
	tab *rosetta.Table
	err error
}

// open is d: a dialog for the step on screen of the run shown, filled once
// its table is built.
func (c *rosettaController) open() action {
	r := c.stepper.cur()
	sel := r.live.selectedIndex()
	if sel < 0 {
		return say(c.lang.T("d shows a step's conversation in every dialect: there is no step yet"))
	}
	msgs := conversationAt(r.live, sel)
	if len(msgs) == 0 {
		return say(c.lang.F("step #%d: the conversation is still empty, so there is nothing to send in any dialect", r.live.steps[sel].t.Seq))
	}
	d := &rosettaDialog{kit: c.kit, run: runOf(c.stepper, r), seq: r.live.steps[sel].t.Seq}
	specs := tools.Default(nil, nil, 0).Specs()
	if r.eng != nil {
		specs = r.eng.Tools() // set when the engine is made; no step changes it
	}
	x, t := systemSource(r.live, sel)
	load := r.store.load
	base := r.base
	return action{open: d, cmd: func() tea.Msg {
		state := providers.Request{Messages: msgs, Tools: specs, System: loop.DefaultSystemPrompt}
		if x == nil && t != nil && load != nil {
			if xs, err := load(t); err == nil && len(xs) > 0 {
				x = &xs[len(xs)-1]
			}
		}
		if x != nil {
			if system, ok := anatomycmd.SystemOf(*x); ok {
				state.System = system
			}
		}
		tab, err := rosetta.Build(base, state)
		return rosettaMsg{d: d, tab: tab, err: err}
	}}
}

// built fills the dialog the table was built for, if it is still open.
func (c *rosettaController) built(msg rosettaMsg) action {
	msg.d.tab, msg.d.err, msg.d.cache = msg.tab, msg.err, nil
	return action{settle: true}
}

// conversationAt is the conversation after step i of l: the messages every
// step up to it added, glassbox's notes left out.
func conversationAt(l *liveState, i int) []history.Message {
	var msgs []history.Message
	for _, s := range l.steps[:i+1] {
		msgs = append(msgs, s.t.Added...)
	}
	return history.WithoutNotes(msgs)
}

// systemSource is where the system prompt at step i of l is read from:
// the last model call up to it (its exchange in memory, or its step to
// read it back from the session), or nothing before the first call.
func systemSource(l *liveState, i int) (*providers.Exchange, *loop.Transition) {
	for j := i; j >= 0; j-- {
		t := &l.steps[j].t
		if pv := l.steps[j].preview; pv != nil && pv.err == nil && j == i {
			return &pv.ex, nil
		}
		if t.LLM == nil {
			continue
		}
		if len(t.Exchanges) > 0 {
			return &t.Exchanges[len(t.Exchanges)-1], nil
		}
		if t.ExchangesAt != nil {
			tc := loop.Transition{Seq: t.Seq, ExchangesAt: t.ExchangesAt}
			return nil, &tc
		}
	}
	return nil, nil
}

// rosettaDialog is the table of one step, in a box that fills the body:
// four columns side by side where they fit (160 columns), else two (←/→
// show the others); it scrolls.
type rosettaDialog struct {
	*kit
	run string // " — NAME run" in compare mode
	seq int
	tab *rosetta.Table // nil while it is built
	err error
	pos scroller
	// first is the first dialect shown; w and h the box it was fitted to.
	first, w, h int
	cache       *rosettaLines
}

// rosettaLines are the table laid out for a width and a first column.
type rosettaLines struct {
	w, first int
	lines    []string
}

var (
	_ dialog = (*rosettaDialog)(nil)
	_ fitter = (*rosettaDialog)(nil)
	_ filler = (*rosettaDialog)(nil)
)

func (*rosettaDialog) fills() bool { return true }

// rosettaKeys are the dialog's keys.
type rosettaKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Left, Right, Close key.Binding
}

func (d *rosettaDialog) keyMap() rosettaKeys {
	k, l := d.kit.keys, d.lang
	return rosettaKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom,
		Left:  key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/→", l.T("other dialects"))),
		Right: key.NewBinding(key.WithKeys("right", "l")),
		Close: key.NewBinding(key.WithKeys("esc", "d", "q"), key.WithHelp("esc/d", l.T("close")))}
}

func (k rosettaKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Close, k.Down, k.Up, k.Left}
}
func (k rosettaKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func (d *rosettaDialog) keys() help.KeyMap { return d.keyMap() }

func (d *rosettaDialog) update(msg tea.KeyMsg) action {
	k := d.keyMap()
	switch {
	case key.Matches(msg, k.Close):
		return action{close: d}
	case key.Matches(msg, k.Left):
		d.first = max(d.first-1, 0)
		d.cache = nil
	case key.Matches(msg, k.Right):
		d.first++
		d.cache = nil
	default:
		d.pos.key(msg, scrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom}, max(d.h-2, 1))
	}
	d.fit(d.w, d.h)
	return action{}
}

// fit settles the columns shown and the scroll for a box of w×h.
func (d *rosettaDialog) fit(w, h int) {
	d.w, d.h = w, h
	if d.tab != nil {
		d.first = min(d.first, max(len(d.tab.Columns)-rosettaColumns(w), 0))
	}
	d.pos.clamp(len(d.lines(w)), max(h-1, 1))
}

func (d *rosettaDialog) box(w, h int) (string, []string) {
	title := d.lang.F("One turn in every dialect: step #%d", d.seq) + d.run
	lines := d.lines(w)
	if len(lines) <= h {
		return title, lines
	}
	off := min(max(d.pos.off, 0), len(lines)-(h-1))
	out := append([]string(nil), lines[off:off+h-1]...)
	return title, append(out, d.th.Muted.Render(cell.Truncate(d.lang.F("↑/↓ scroll · line %d of %d", off+1, len(lines)), w, "…")))
}

// rosettaColumns is how many dialects stand side by side in w cells.
func rosettaColumns(w int) int {
	switch {
	case w >= 140:
		return 4
	case w >= 60:
		return 2
	}
	return 1
}

// lines is the whole table at width w, from the dialect first on.
func (d *rosettaDialog) lines(w int) []string {
	if c := d.cache; c != nil && c.w == w && c.first == d.first {
		return c.lines
	}
	var out []string
	switch {
	case d.err != nil:
		out = wrapStyled(d.th.Error, d.lang.F("The requests could not be built: %s", sanitize(d.err.Error())), w)
	case d.tab == nil:
		out = wrapStyled(d.th.Muted, d.lang.T("Building the request in every dialect, through each one's own provider…"), w)
	default:
		out = d.table(w)
	}
	d.cache = &rosettaLines{w: w, first: d.first, lines: out}
	return out
}

// table lays the columns shown out side by side, row by row.
func (d *rosettaDialog) table(w int) []string {
	l := d.lang
	n := min(rosettaColumns(w), len(d.tab.Columns))
	first := min(d.first, len(d.tab.Columns)-n)
	sep := " │ "
	cw := max((w-(n-1)*cell.Width(sep))/n, 8)
	out := wrapStyled(d.th.Muted, l.T("Each request was built by glassbox's own provider for that dialect, through its SDK client, and read back part by part; nothing was sent."), w)
	if n < len(d.tab.Columns) {
		out = append(out, d.th.Warning.Render(cell.Truncate(l.F("dialects %d–%d of %d: ←/→ show the others", first+1, first+n, len(d.tab.Columns)), w, "…")))
	}
	heads := make([][]string, n)
	for i := range heads {
		col := d.tab.Columns[first+i]
		head := l.Dyn(col.Label)
		if col.Error != "" {
			head += " — " + sanitize(col.Error)
		}
		heads[i] = wrapStyled(d.th.Bold, head, cw)
	}
	out = append(out, "")
	out = append(out, sideBySide(heads, cw, sep)...)
	out = append(out, d.th.Muted.Render(strings.Repeat("─", w)))
	for _, row := range d.tab.Rows {
		out = append(out, d.th.Title.Render(cell.Truncate(anatomycmd.RowTitle(l, row), w, "…")))
		cells := make([][]string, n)
		for i := range cells {
			c := row.Cells[first+i]
			cells[i] = wrapLines(prettyCell(c.Text), cw)
			if strings.TrimSpace(c.Text) == "" {
				cells[i] = []string{d.th.Muted.Render(l.T("(not in this request)"))}
			}
			for _, lost := range c.Lost {
				cells[i] = append(cells[i], wrapStyled(d.th.Warning, "✗ "+l.F("cannot carry %s", l.Dyn(lost)), cw)...)
			}
		}
		out = append(out, sideBySide(cells, cw, sep)...)
		out = append(out, wrapStyled(d.th.Muted, l.Dyn(row.Caption), w)...)
		out = append(out, "")
	}
	return out
}

// sideBySide sets columns of lines side by side, each cw cells wide.
func sideBySide(cols [][]string, cw int, sep string) []string {
	h := 0
	for _, c := range cols {
		h = max(h, len(c))
	}
	out := make([]string, h)
	for y := range out {
		var b strings.Builder
		for i, c := range cols {
			if i > 0 {
				b.WriteString(sep)
			}
			ln := ""
			if y < len(c) {
				ln = c[y]
			}
			b.WriteString(cell.Fit(ln, cw, "…"))
		}
		out[y] = b.String()
	}
	return out
}

// prettyCell lays a cell's parts out to be read: a part that is JSON on
// its own (or a member, "key": value) indented; a piece of a JSON string —
// JSON mode's system prompt and its tools' paragraphs — with its escapes
// read (\n a new line, \" a quote), as the model reads it.
func prettyCell(text string) string {
	parts := strings.Split(text, "\n")
	for i, p := range parts {
		var b bytes.Buffer
		switch {
		case json.Valid([]byte(p)) && json.Indent(&b, []byte(p), "", " ") == nil:
			parts[i] = b.String()
		case json.Valid([]byte("{"+p+"}")) && json.Indent(&b, []byte("{"+p+"}"), "", " ") == nil:
			inner := strings.TrimSuffix(strings.TrimPrefix(b.String(), "{\n"), "\n}")
			parts[i] = strings.ReplaceAll("\n"+inner, "\n ", "\n")[1:] // a member: one level out
		default:
			parts[i] = jsonText.Replace(p)
		}
	}
	// The slots JSON mode's tool paragraphs leave in the system prompt
	// (they are the next row) are one blank line, not a run of them.
	out := strings.Join(parts, "\n")
	for strings.Contains(out, "\n\n\n") {
		out = strings.ReplaceAll(out, "\n\n\n", "\n\n")
	}
	return out
}

// jsonText reads the escapes of a piece of a JSON string.
var jsonText = strings.NewReplacer(`\n`, "\n", `\"`, `"`, `\\`, `\`, `\t`, "    ", `\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
