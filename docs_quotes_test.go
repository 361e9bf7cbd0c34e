package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// A doc quotes the program with a marker, an HTML comment on a line of its
// own (docs/README.md, "Docs that cannot drift"):
//
//	<!-- screen: SCENE[@MARK] WxH -->   the glass box (docScenes) at that size
//	<!-- output: COMMAND -->            what a glassbox command line prints
//	<!-- file: NAME -->                 (before a fenced block) the block is a
//	                                    file the commands and scenes can use
//
// The marker covers the lines after it up to the next blank line (a
// paragraph, a list), the next marker or an <!-- end --> line, or, when a
// fenced block follows, that block. Every
// code span it covers, or every line of the block, must be found where the
// marker says: a screen quote in a frame of the scene (at MARK, or in any
// frame the scene's keys led through), an output quote in what the command
// printed. A block as tall as the screen is the whole frame at MARK, row by
// row; go test -run TestDocQuotes -update writes it anew.
//
// Quotes are compared as a person reads them: a quote may run across the
// lines a pane wrapped it onto, "…" stands for any text, and durations
// ("151ms", "1 ms") match any duration.

var (
	updateDocs = flag.Bool("update", false, "TestDocQuotes: write the whole-screen blocks of the docs anew from their scenes")
	dumpFrames = flag.String("frames", "", "TestDocQuotes: write every frame of every scene played into this folder (SCENE-WxH-LANG/NNN.txt, marks named)")
)

var (
	marker    = regexp.MustCompile(`^\s*<!--\s*(screen|output|file):\s*(.*?)\s*-->\s*$`)
	endMarker = regexp.MustCompile(`^\s*<!--\s*end\s*-->\s*$`)
)

// quote is a piece of a doc that a marker names.
type quote struct {
	text string
	line int
}

// source is where a marker says its quotes come from.
type source struct{ kind, arg string }

// quoted is a marker (or a stack of them, one line each: a quote may then
// come from any) and what it covers.
type quoted struct {
	sources []source
	line    int // the (first) marker's
	quotes  []quote
	block   []string // a fenced block's lines; block[0] is on line blockAt
	blockAt int
}

// markers are the page's markers with their quotes.
func (p *page) markers() []quoted {
	var out []quoted
	for i := 0; i < len(p.lines); i++ {
		if p.fence[i] || !marker.MatchString(p.lines[i]) {
			continue
		}
		q := quoted{line: i}
		for ; i < len(p.lines) && marker.MatchString(p.lines[i]); i++ {
			m := marker.FindStringSubmatch(p.lines[i])
			q.sources = append(q.sources, source{kind: m[1], arg: m[2]})
		}
		if i < len(p.lines) && p.fence[i] {
			end := i + 1
			for end < len(p.lines) && p.fence[end] && !strings.HasPrefix(strings.TrimSpace(p.lines[end]), strings.TrimSpace(p.lines[i])[:3]) {
				end++
			}
			q.block, q.blockAt = p.lines[i+1:end], i+1
			for j, b := range q.block {
				if t := strings.TrimSpace(strings.Trim(strings.TrimSpace(b), "│")); t != "" && t != "…" && t != "..." {
					q.quotes = append(q.quotes, quote{text: strings.TrimRight(b, " "), line: i + 1 + j})
				}
			}
		} else {
			end := i
			for end < len(p.lines) && strings.TrimSpace(p.lines[end]) != "" && !marker.MatchString(p.lines[end]) && !endMarker.MatchString(p.lines[end]) && !p.fence[end] {
				end++
			}
			for _, s := range codeSpans(p.lines, i, end) {
				q.quotes = append(q.quotes, quote{text: s.text, line: s.line})
			}
		}
		i--
		out = append(out, q)
	}
	return out
}

// holder is a source made ready: a scene's frames or a command's output.
type holder interface {
	// find looks for text from offset at (outputs only: a block's lines
	// come in order) and returns where it ends.
	find(text string, at int) (end int, ok bool)
	// said names the source in a failure message, with what it holds.
	said() string
}

// sceneFrames is a screen source: the frames a quote may be on.
type sceneFrames struct {
	name, size, lang string
	frames           []*frame
}

func (s sceneFrames) find(text string, _ int) (int, bool) {
	q := newScreenQuote(text)
	return 0, slices.ContainsFunc(s.frames, func(f *frame) bool { return f.holds(q) })
}

func (s sceneFrames) said() string {
	n := "one frame"
	if len(s.frames) > 1 {
		n = fmt.Sprintf("any of %d frames; go test -run TestDocQuotes -frames DIR writes them all", len(s.frames))
	}
	return fmt.Sprintf("the screen of scene %s at %s (%s, %s); the last frame:\n%s", s.name, s.size, s.lang, n, s.frames[len(s.frames)-1].text)
}

// commandOutput is an output source.
type commandOutput struct{ cmd, out, norm string }

func newOutput(cmd, out string) commandOutput {
	return commandOutput{cmd: cmd, out: out, norm: strings.ReplaceAll(maskDurations(out), "\n", "\x00")}
}

func (o commandOutput) find(text string, at int) (int, bool) {
	loc := quotePattern(text).FindStringIndex(o.norm[at:])
	if loc == nil {
		return 0, false
	}
	return at + loc[1], true
}

func (o commandOutput) said() string { return fmt.Sprintf("the output of `%s`:\n%s", o.cmd, o.out) }

// quoteChecker checks markers, playing each scene and running each command once.
type quoteChecker struct {
	t       *testing.T
	scenes  sceneCache
	outputs map[string]commandOutput
}

// TestDocQuotes: every quote a marker names is found where it says.
func TestDocQuotes(t *testing.T) {
	isolate(t)
	for k, v := range map[string]string{"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C"} {
		t.Setenv(k, v) // the docs' commands speak English unless they say --lang
	}
	c := quoteChecker{t: t, scenes: newSceneCache(), outputs: map[string]commandOutput{}}
	pages := docPages(t)
	writeDocFiles(t, pages)
	c.scenes.plan(pages)
	for name := range docScenes {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(c.scenes.lastPage)), func(k string) bool { return strings.HasPrefix(k, name+" ") }) {
			t.Errorf("docScenes: no page quotes scene %s; a scene is a moment a doc shows", name)
		}
	}
	n := 0
	for i, p := range pages {
		changed := false
		for _, q := range p.markers() {
			n++
			changed = c.check(p, q) || changed
		}
		c.scenes.release(i)
		if changed {
			if err := os.WriteFile(filepath.Join(repoRoot, p.path), []byte(strings.Join(p.lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d markers found in the docs: the marker pattern no longer matches them", n)
	}
}

// writeDocFiles writes the blocks the docs mark as files into the test's
// folder, where the commands and scenes of the markers run.
func writeDocFiles(t *testing.T, pages []*page) {
	t.Helper()
	for _, p := range pages {
		for _, q := range p.markers() {
			if q.sources[0].kind != "file" {
				continue
			}
			name := q.sources[0].arg
			if q.block == nil || len(q.sources) > 1 || filepath.Base(name) != name {
				t.Errorf("%s: a file marker names a file (no folder) and stands alone before a fenced block", p.where(q.line))
				continue
			}
			if err := os.WriteFile(name, []byte(strings.Join(q.block, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// check checks one marker's quotes; it reports whether it wrote a
// whole-screen block anew (-update).
func (c quoteChecker) check(p *page, q quoted) bool {
	t := c.t
	t.Helper()
	if q.sources[0].kind == "file" {
		return false
	}
	if len(q.quotes) == 0 {
		t.Errorf("%s: the marker covers no quote (code spans, or a fenced block right after it)", p.where(q.line))
		return false
	}
	var holders []holder
	for _, s := range q.sources {
		h, err := c.holder(p, s, q.line)
		if err != nil {
			t.Errorf("%s: %v", p.where(q.line), err)
			return false
		}
		if f, ok := h.(sceneFrames); ok && len(q.sources) == 1 && q.block != nil && fmt.Sprint(len(q.block)) == strings.Split(f.size, "x")[1] {
			return wholeScreen(t, p, q, f)
		}
		holders = append(holders, h)
	}
	at := 0
	for _, qt := range q.quotes {
		text := qt.text
		if q.block != nil {
			text = strings.TrimSpace(text)
		} else if isCommand(text) {
			continue // a command line or a flag the doc tells the reader to type: TestDocFlags checks it
		}
		found := false
		for _, h := range holders {
			if end, ok := h.find(text, at); ok {
				found = true
				if q.block != nil && len(holders) == 1 {
					at = end
				}
				break
			}
		}
		if !found {
			order := ""
			if at > 0 {
				order = " (after the line before it)"
			}
			t.Errorf("%s: %q is not in %s%s", p.where(qt.line), qt.text, holders[0].said(), order)
			for _, h := range holders[1:] {
				t.Errorf("%s: nor in %s", p.where(qt.line), h.said())
			}
		}
	}
	return false
}

// isCommand says whether a code span is something to type rather than to
// read: a glassbox command line or a flag (--sim-latency 1s).
func isCommand(span string) bool {
	if _, ok := lonelyFlag(span); ok {
		return true
	}
	cmds := simpleCommands(span)
	if len(cmds) == 0 {
		return false
	}
	_, ok := afterGlassbox(cmds[0])
	return ok
}

// holder makes a source ready.
func (c quoteChecker) holder(p *page, s source, line int) (holder, error) {
	switch s.kind {
	case "output":
		o, ok := c.outputs[s.arg]
		if !ok {
			o = newOutput(s.arg, runOutput(c.t, p.where(line), s.arg))
			c.outputs[s.arg] = o
		}
		return o, nil
	}
	name, size, err := parseScreenArg(s.arg)
	if err != nil {
		return nil, err
	}
	scene, mark, _ := strings.Cut(name, "@")
	var w, h int
	fmt.Sscanf(size, "%dx%d", &w, &h)
	run, err := c.scenes.get(c.t, scene, w, h, p.ja)
	if err != nil {
		return nil, err
	}
	frames := run.frames
	if mark != "" {
		i, ok := run.marks[mark]
		if !ok {
			return nil, fmt.Errorf("scene %s has no mark @%s (its marks: %v)", scene, mark, run.markNames())
		}
		frames = run.frames[i : i+1]
	}
	lang := "--lang en"
	if p.ja {
		lang = "--lang ja"
	}
	return sceneFrames{name: name, size: size, lang: lang, frames: frames}, nil
}

// TestInstructorGuideSaysTheSize: a screen quoted in the instructor guide
// is one of the size the guide says it was taken at (a size written with
// "×" in the section of the quote, or in the guide's opening).
func TestInstructorGuideSaysTheSize(t *testing.T) {
	n := 0
	for _, p := range docPages(t) {
		if filepath.Base(p.path) != "instructor-guide.md" {
			continue
		}
		for _, q := range p.markers() {
			for _, s := range q.sources {
				if s.kind != "screen" {
					continue
				}
				n++
				_, size, err := parseScreenArg(s.arg)
				if err != nil {
					t.Errorf("%s: %v", p.where(q.line), err)
					continue
				}
				said := strings.Replace(size, "x", "×", 1)
				if !strings.Contains(p.opening(), said) && !strings.Contains(p.section(q.line), said) {
					t.Errorf("%s: a screen quoted at %s, and neither the section nor the guide's opening says %s", p.where(q.line), size, said)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("%d screen quotes in the instructor guides", n)
	}
}

// opening is the page's text before its first "## " heading, markers left out.
func (p *page) opening() string {
	var b strings.Builder
	for i, l := range p.lines {
		if strings.HasPrefix(l, "## ") && !p.fence[i] {
			break
		}
		if !marker.MatchString(l) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// section is the visible text of the "## " section holding line i.
func (p *page) section(i int) string {
	start := i
	for start > 0 && !(strings.HasPrefix(p.lines[start], "## ") && !p.fence[start]) {
		start--
	}
	var b strings.Builder
	for j := start; j < len(p.lines); j++ {
		if j > start && strings.HasPrefix(p.lines[j], "## ") && !p.fence[j] {
			break
		}
		if !marker.MatchString(p.lines[j]) {
			b.WriteString(p.lines[j] + "\n")
		}
	}
	return b.String()
}

// parseScreenArg reads "SCENE[@MARK] WxH".
func parseScreenArg(arg string) (scene, size string, err error) {
	f := strings.Fields(arg)
	if len(f) != 2 || !regexp.MustCompile(`^\d+x\d+$`).MatchString(f[1]) {
		return "", "", fmt.Errorf("screen marker %q: want SCENE[@MARK] WxH, such as tour@tool_call 120x34", arg)
	}
	return f[0], f[1], nil
}

// wholeScreen compares a block as tall as the screen with the frame, row
// by row, durations aside; with -update it writes the frame into the page.
func wholeScreen(t *testing.T, p *page, q quoted, s sceneFrames) bool {
	t.Helper()
	rows := strings.Split(s.frames[len(s.frames)-1].text, "\n")
	line, diff := screenDiff(q.block, rows)
	switch {
	case diff == "":
		return false
	case *updateDocs:
		for i, r := range rows {
			rows[i] = strings.TrimRight(r, " ")
		}
		copy(p.lines[q.blockAt:], rows) // as many rows as the block: it is as tall as the screen
		return true
	}
	t.Errorf("%s: the screen quoted from scene %s at %s (%s; go test -run TestDocQuotes -update writes it anew) %s",
		p.where(q.blockAt+line), s.name, s.size, s.lang, diff)
	return false
}

// screenDiff says how a quoted screen differs from rows, drawn now, and
// from which of its lines; "" when it does not.
func screenDiff(block, rows []string) (int, string) {
	doc, now := shapeOf(strings.Join(block, "\n")), shapeOf(strings.Join(rows, "\n"))
	for i := range max(len(doc.frame), len(now.frame)) {
		if i >= len(doc.frame) || i >= len(now.frame) || doc.frame[i] != now.frame[i] {
			return min(i, len(block)-1), fmt.Sprintf("is drawn differently from row %d on:\n doc: %s\n now: %s", i+1, at(block, i), at(rows, i))
		}
	}
	for i := range max(len(doc.boxes), len(now.boxes)) {
		if i >= len(doc.boxes) || i >= len(now.boxes) || doc.boxes[i] != now.boxes[i] {
			d, n := difference(at(doc.boxes, i), at(now.boxes, i))
			return 0, fmt.Sprintf("holds other text in box %d (white space aside):\n doc: …%s…\n now: …%s…", i+1, d, n)
		}
	}
	return 0, ""
}

// difference is where two texts part: a few characters either side.
func difference(a, b string) (string, string) {
	ra, rb := []rune(a), []rune(b)
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	cut := func(r []rune) string { return string(r[max(0, i-30):min(len(r), i+50)]) }
	return cut(ra), cut(rb)
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// shape is a whole screen as wholeScreen compares it: its frame (every
// row with the insides of its boxes blanked, durations masked, runs of
// spaces one) and what each box holds (without white space or durations,
// so that a duration of another width, wrapping a line elsewhere, changes
// nothing).
type shape struct{ frame, boxes []string }

func shapeOf(text string) shape {
	rows := strings.Split(text, "\n")
	grid := make([][]string, len(rows))
	for i, r := range rows {
		grid[i] = cellsOf(r)
	}
	var s shape
	found := boxesOf(grid)
	for _, b := range found {
		s.boxes = append(s.boxes, squash(anyDuration.ReplaceAllString(b.inside(grid), "#")))
	}
	for _, b := range found {
		for r := b.top + 1; r < b.bottom; r++ {
			for c := b.left + 1; c < min(b.right, len(grid[r])); c++ {
				grid[r][c] = " "
			}
		}
	}
	for _, row := range grid {
		s.frame = append(s.frame, strings.Join(strings.Fields(anyDuration.ReplaceAllString(strings.Join(row, ""), "#")), " "))
	}
	return s
}

var anyDuration = regexp.MustCompile(`\d+(\.\d+)?( ?)(ms|µs|s)\b`)

// maskDurations writes every duration in milliseconds or microseconds
// ("151ms", "1 ms", "226µs") as "#ms" ("# ms"): quotes match whatever time
// a run took. (A hand-made scan: a regular expression over every frame
// was a tenth of the checks' time.)
func maskDurations(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' || i > 0 && (isWordByte(s[i-1]) || s[i-1] == '.') {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		k := j
		if k < len(s) && s[k] == ' ' {
			k++
		}
		unit := ""
		for _, u := range []string{"ms", "µs"} {
			if strings.HasPrefix(s[k:], u) && (k+len(u) == len(s) || !isWordByte(s[k+len(u)])) {
				unit = u
			}
		}
		if unit == "" {
			b.WriteString(s[i:j])
			i = j
			continue
		}
		b.WriteString("#" + s[j:k] + "ms")
		i = k + len(unit)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// frame is one screen the glass box drew, as plain text. A quote is looked
// for in its regions: every row, and the inside of every box (a pane, a
// dialog) with its wrapped lines one after the other.
type frame struct {
	text     string
	regions  string // the regions, separated by NUL; made on first use
	squashed string // the regions without white space, to rule a quote out fast
}

// screenQuote is a quote made ready to look for: its pattern, and its
// pieces between "…" without white space, which a frame holding it holds.
type screenQuote struct {
	pattern *regexp.Regexp
	pieces  []string
}

func newScreenQuote(text string) screenQuote {
	q := screenQuote{pattern: quotePattern(text)}
	for _, p := range strings.Split(squash(maskDurations(text)), "…") {
		if p != "" {
			q.pieces = append(q.pieces, p)
		}
	}
	return q
}

// squash drops the white space of s.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' {
			return -1
		}
		return r
	}, s)
}

// holds reports whether a quote is on the frame.
func (f *frame) holds(q screenQuote) bool {
	if f.regions == "" {
		f.regions = regionsOf(f.text)
		f.squashed = squash(f.regions)
	}
	for _, p := range q.pieces {
		if !strings.Contains(f.squashed, p) {
			return false
		}
	}
	return q.pattern.MatchString(f.regions)
}

func regionsOf(text string) string {
	rows := strings.Split(text, "\n")
	grid := make([][]string, len(rows))
	for i, r := range rows {
		grid[i] = cellsOf(r)
	}
	var regions []string
	for _, r := range rows {
		regions = append(regions, strings.TrimRight(r, " "))
	}
	regions = append(regions, boxes(grid)...)
	return maskDurations(strings.Join(regions, "\x00"))
}

// cellsOf splits a row into terminal cells: a wide character takes two,
// the second empty.
func cellsOf(row string) []string {
	cells := make([]string, 0, len(row))
	for i, r := range row {
		n := utf8.RuneLen(r)
		cells = append(cells, row[i:i+n])
		if wide(r) {
			cells = append(cells, "")
		}
	}
	return cells
}

// wide says whether r takes two cells, as the glass box measures it
// (ansi.StringWidth); the box-drawing and other narrow symbols the screen
// is made of are answered without asking it.
func wide(r rune) bool {
	switch {
	case r < 0x1100, r >= 0x2000 && r < 0x2200, r >= 0x2500 && r < 0x2600: // punctuation, arrows, boxes, shapes
		return false
	}
	return ansi.StringWidth(string(r)) > 1
}

const (
	topLeft     = "╭┏┌"
	topRight    = "╮┓┐"
	bottomLeft  = "╰┗└"
	verticalBar = "│┃"
)

// box is a box drawn on a grid: its corners' rows and columns.
type box struct{ top, left, bottom, right int }

// boxesOf finds the boxes drawn on grid (a pane, a dialog over panes).
func boxesOf(grid [][]string) []box {
	var out []box
	for r, row := range grid {
		for c, cell := range row {
			if cell == "" || !strings.Contains(topLeft, cell) {
				continue
			}
			right := c + 1
			for right < len(row) && (row[right] == "" || !strings.Contains(topRight, row[right])) {
				right++
			}
			bottom := r + 1
			for bottom < len(grid) && c < len(grid[bottom]) && grid[bottom][c] != "" && strings.Contains(verticalBar, grid[bottom][c]) {
				bottom++
			}
			if right >= len(row) || bottom >= len(grid) || c >= len(grid[bottom]) || grid[bottom][c] == "" || !strings.Contains(bottomLeft, grid[bottom][c]) {
				continue
			}
			out = append(out, box{r, c, bottom, right})
		}
	}
	return out
}

// inside is the text inside b, its rows right-trimmed, one after the other.
func (b box) inside(grid [][]string) string {
	var rows []string
	for _, line := range grid[b.top+1 : b.bottom] {
		rows = append(rows, strings.TrimRight(strings.Join(line[min(b.left+1, len(line)):min(b.right, len(line))], ""), " "))
	}
	return strings.Join(rows, "\n")
}

// boxes are the insides of the boxes drawn on grid.
func boxes(grid [][]string) []string {
	var out []string
	for _, b := range boxesOf(grid) {
		out = append(out, b.inside(grid))
	}
	return out
}

// quotePattern is a quote as a pattern: white space matches white space or
// a line break, a line may break between any two characters (a pane wraps
// long words), "…" matches any text of one region, durations any duration.
func quotePattern(q string) *regexp.Regexp {
	q = maskDurations(strings.Join(strings.Fields(q), " "))
	var b strings.Builder
	const wrap = `(?:[ ]*\n[ ]*)?`
	// A quote that starts or ends with a letter or digit starts or ends a
	// word there: "8 lines" is not in "58 lines".
	word := regexp.MustCompile(`^[A-Za-z0-9_]$`)
	if q != "" && word.MatchString(q[:1]) {
		b.WriteString(`(?:^|[^A-Za-z0-9_])`)
	}

	for i, r := range q {
		switch {
		case r == ' ':
			b.WriteString(`[ \n]+`)
		case r == '…':
			b.WriteString(`[^\x00]*?`)
		default:
			if i > 0 {
				b.WriteString(wrap)
			}
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return regexp.MustCompile(b.String() + wordEnd(q))
}

// wordEnd is what must follow a quote that ends with a letter or digit:
// the end of a word.
func wordEnd(q string) string {
	if q != "" && regexp.MustCompile(`[A-Za-z0-9_]$`).MatchString(q) {
		return `(?:$|[^A-Za-z0-9_])`
	}
	return ""
}

// runOutput runs an output marker's command line in the test's own folder:
// glassbox commands (glassbox …, go run . …) with `printf '…' |` as their
// standard input, `cp testdata/… .` from the repository, and `| jq -c
// 'select(.A) | {k, k2: .b.c}'` on a JSONL trace; commands are joined with
// && or ;. A last "# exit N" says the exit code the last glassbox command
// must end with. It returns what the last command printed.
func runOutput(t *testing.T, where, line string) string {
	t.Helper()
	var out string
	code, want := 0, -1
	if before, after, ok := strings.Cut(line, " # exit "); ok {
		line = before
		if _, err := fmt.Sscanf(after, "%d", &want); err != nil {
			t.Fatalf("%s: output marker %q: want \"# exit N\" at its end", where, line)
		}
	}
	defer func() {
		if want >= 0 && code != want {
			t.Errorf("%s: `%s` ended with exit code %d, the doc says %d:\n%s", where, line, code, want, out)
		}
	}()
	for _, cmd := range splitUnquoted(line, "&&", ";") {
		stdin, jq := "", ""
		parts := splitUnquoted(cmd, "|")
		if f := shellWords(parts[0]); len(f) >= 2 && f[0] == "printf" {
			stdin, parts = unescape(f[1]), parts[1:]
		}
		if n := len(parts); n > 1 && strings.HasPrefix(parts[n-1], "jq ") {
			jq, parts = parts[n-1], parts[:n-1]
		}
		if len(parts) != 1 {
			t.Fatalf("%s: output marker %q: a pipe other than printf … | glassbox … | jq …", where, line)
		}
		words := shellWords(parts[0])
		if len(words) == 3 && words[0] == "cp" {
			b, err := os.ReadFile(filepath.Join(repoRoot, words[1]))
			if err == nil {
				err = os.WriteFile(filepath.Base(words[1]), b, 0o644)
			}
			if err != nil {
				t.Fatalf("%s: %s: %v", where, cmd, err)
			}
			continue
		}
		args, ok := afterGlassbox(words)
		if !ok {
			t.Fatalf("%s: output marker %q: %q is not a glassbox command", where, line, cmd)
		}
		out, code = runGlassbox(t, args, stdin)
		if jq != "" {
			out = miniJQ(t, where, jq, out)
		}
	}
	return out
}

// runGlassbox runs glassbox with args (`run` waits for no retry) and
// returns what it printed and its exit code.
func runGlassbox(t *testing.T, args []string, stdin string) (string, int) {
	t.Helper()
	var out strings.Builder
	var code int
	if len(args) > 0 && args[0] == "run" {
		code = runHeadless(t.Context(), args[1:], noSleep, strings.NewReader(stdin), &out, &out)
	} else {
		code = realMain(t.Context(), args, strings.NewReader(stdin), &out, &out)
	}
	return out.String(), code
}

// splitUnquoted splits s at each of seps that is outside quotes, trimming
// the pieces.
func splitUnquoted(s string, seps ...string) []string {
	var out []string
	quote, start := byte(0), 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		default:
			for _, sep := range seps {
				if strings.HasPrefix(s[i:], sep) {
					out = append(out, strings.TrimSpace(s[start:i]))
					start = i + len(sep)
					i += len(sep) - 1
					break
				}
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// shellWords splits a command into words, '…' and "…" quoting.
func shellWords(s string) []string {
	var words []string
	for _, m := range regexp.MustCompile(`'[^']*'|"[^"]*"|\S+`).FindAllString(s, -1) {
		words = append(words, strings.Trim(m, `'"`))
	}
	return words
}

func unescape(s string) string {
	u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	if err != nil {
		return s
	}
	return u
}

// miniJQ is the jq the docs use on a trace: jq -c 'select(.PATH) | {k,
// name: .PATH, …}', one compact object a line.
func miniJQ(t *testing.T, where, cmd, jsonl string) string {
	t.Helper()
	m := regexp.MustCompile(`^jq -c '(?:select\(\.([\w.]+)\) \| )?\{(.*)\}'.*$`).FindStringSubmatch(cmd)
	if m == nil {
		t.Fatalf("%s: %q: the docs' checks read only jq -c 'select(.a) | {k, n: .b.c}'", where, cmd)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || m[1] != "" && jsonPath(rec, m[1]) == nil {
			continue
		}
		var fields []string
		for _, f := range strings.Split(m[2], ",") {
			name, path, ok := strings.Cut(strings.TrimSpace(f), ":")
			if !ok {
				path = "." + name
			}
			v, _ := json.Marshal(jsonPath(rec, strings.TrimPrefix(strings.TrimSpace(path), ".")))
			k, _ := json.Marshal(strings.TrimSpace(name))
			fields = append(fields, string(k)+":"+string(v))
		}
		out.WriteString("{" + strings.Join(fields, ",") + "}\n")
	}
	return out.String()
}

func jsonPath(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// docScene is a moment of the glass box a doc shows: the flags it is
// started with and the keys pressed. A key is a name (enter, space, esc,
// tab, up, down, …) or a character, "KEY*N" presses it N times, "type:TEXT"
// types TEXT, and "@MARK" names the frame the keys before it led to.
type docScene struct {
	args []string
	keys []string
}

// sceneRun is what a scene drew: every frame, and the marked ones.
type sceneRun struct {
	frames []*frame
	marks  map[string]int
}

func (r *sceneRun) markNames() []string {
	var names []string
	for k := range r.marks {
		names = append(names, "@"+k)
	}
	slices.Sort(names)
	return names
}

// dump writes the frames into dir, one file each, the marked ones named.
func (r *sceneRun) dump(t *testing.T, dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.txt")) // an earlier run's frames
	for _, f := range old {
		os.Remove(f)
	}
	names := map[int]string{}
	for k, i := range r.marks {
		names[i] += "@" + k
	}
	for i, f := range r.frames {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d%s.txt", i, names[i])), []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sceneCache plays each scene once per size and language.
type sceneCache struct {
	runs map[string]*sceneRun
	// marksOnly are the plays whose every quote names a mark: only the
	// marked frames are drawn (View only reads, so the rest need not be).
	marksOnly map[string]bool
	// lastPage is the last page (by index) that quotes each play: after
	// it, the play's frames are let go.
	lastPage map[string]int
}

func newSceneCache() sceneCache {
	return sceneCache{runs: map[string]*sceneRun{}, marksOnly: map[string]bool{}, lastPage: map[string]int{}}
}

// release lets go of the plays no page after page i quotes.
func (c sceneCache) release(i int) {
	for key, last := range c.lastPage {
		if last <= i {
			delete(c.runs, key)
		}
	}
}

func playID(name string, w, h int, ja bool) string { return fmt.Sprintf("%s %dx%d %v", name, w, h, ja) }

// plan notes the plays the pages' markers only ever quote at their marks.
func (c sceneCache) plan(pages []*page) {
	every := map[string]bool{}
	for i, p := range pages {
		for _, q := range p.markers() {
			for _, s := range q.sources {
				name, size, err := parseScreenArg(s.arg)
				if s.kind != "screen" || err != nil {
					continue
				}
				scene, mark, _ := strings.Cut(name, "@")
				var w, h int
				fmt.Sscanf(size, "%dx%d", &w, &h)
				key := playID(scene, w, h, p.ja)
				every[key] = every[key] || mark == "" && (q.block == nil || len(q.block) != h)
				c.marksOnly[key] = !every[key]
				c.lastPage[key] = i
			}
		}
	}
}

// get plays a scene, or gives the play it made before.
func (c sceneCache) get(t *testing.T, name string, w, h int, ja bool) (*sceneRun, error) {
	t.Helper()
	key := playID(name, w, h, ja)
	if r, ok := c.runs[key]; ok {
		return r, nil
	}
	sc, ok := docScenes[name]
	if !ok {
		names := make([]string, 0, len(docScenes))
		for k := range docScenes {
			names = append(names, k)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("no scene %q in docScenes (docs_scenes_test.go); there are %v", name, names)
	}
	start := time.Now()
	r, err := runScene(t, sc, w, h, ja, c.marksOnly[key])
	if err != nil {
		return nil, fmt.Errorf("scene %s: %w", name, err)
	}
	t.Logf("played %s: %d frames in %v", key, len(r.frames), time.Since(start).Round(time.Millisecond))
	if *dumpFrames != "" {
		r.dump(t, filepath.Join(*dumpFrames, strings.ReplaceAll(key, " ", "-")))
	}
	c.runs[key] = r
	return r, nil
}

// The machine's own, in every screen a doc quotes: the state folder, the
// session's id and the sandbox are shown as these.
const (
	docStateDir  = "/home/alice/.local/state"
	docSessionID = "20261125-114650-788c"
	// docSandbox is the sandbox of a kernel with Landlock ABI 7, shown
	// whatever this machine's kernel offers (a kernel without Landlock
	// says so, and the docs show the common case).
	docSandbox = "on — Landlock ABI 7 + seccomp + read-only mounts: commands read only the workspace, their temporary folder and the system's program folders and change only the first two"
)

// runScene opens the glass box as glassbox does (agentrun.OpenAll,
// glassbox.ConfigFor) at w×h, presses the scene's keys and keeps every frame it
// draws, or with marksOnly the marked ones and the last.
func runScene(t *testing.T, sc docScene, w, h int, ja, marksOnly bool) (*sceneRun, error) {
	t.Helper()
	args := append([]string{"--lang", "en", "--sim-latency", "0"}, sc.args...)
	if ja {
		args[1] = "ja"
	}
	c, _, err := loadConfig("glassbox", args, false, io.Discard)
	if err != nil {
		return nil, err
	}
	c.Sleep = noSleep
	if err := c.DefaultSession(os.Getenv); err != nil {
		return nil, err
	}
	persons := map[string]*glassbox.Person{}
	runs, err := agentrun.OpenAll(t.Context(), c, func(name string) loop.Person {
		persons[name] = glassbox.NewPerson()
		return persons[name]
	})
	if err != nil {
		return nil, err
	}
	defer agentrun.CloseAll(runs)
	cfg, err := glassbox.ConfigFor(c.Lesson, runs, persons)
	if err != nil {
		return nil, err
	}
	state, _ := agentrun.SessionDir(os.Getenv)
	id := strings.TrimSuffix(filepath.Base(c.Session), ".jsonl")
	for i := range cfg.Runs {
		cfg.Runs[i].Workspace = strings.NewReplacer(filepath.Dir(filepath.Dir(state)), docStateDir, id, docSessionID).Replace(cfg.Runs[i].Workspace)
	}
	if strings.HasPrefix(cfg.Sandbox, "on") {
		cfg.Sandbox = docSandbox
	}
	run := &sceneRun{marks: map[string]int{}}
	p := &program{m: glassbox.New(cfg), view: !marksOnly, onView: run.keep}
	p.send(messages(p.m.Init())...)
	p.send(tea.WindowSizeMsg{Width: w, Height: h})
	for _, k := range append(sc.keys, "@") {
		if err := pressKey(p, run, k); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// keep adds a frame drawn, unless it is the one before again.
func (r *sceneRun) keep(view string) {
	if v := ansi.Strip(view); len(r.frames) == 0 || r.frames[len(r.frames)-1].text != v {
		r.frames = append(r.frames, &frame{text: v})
	}
}

// pressKey presses one key of a scene (or types, or marks the frame).
func pressKey(p *program, run *sceneRun, k string) error {
	switch {
	case strings.HasPrefix(k, "@"): // "@" alone: the end
		if !p.view {
			run.keep(p.m.View())
		}
		if k != "@" {
			run.marks[k[1:]] = len(run.frames) - 1
		}
		return nil
	case strings.HasPrefix(k, "type:"):
		p.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k[len("type:"):])})
		return nil
	}
	name, times := k, 1
	if before, n, ok := strings.Cut(k, "*"); ok {
		var err error
		if name, times = before, 0; n != "" {
			times, err = strconv.Atoi(n)
		}
		if err != nil || times < 1 {
			return fmt.Errorf("key %q: want KEY*N", k)
		}
	}
	for range times {
		p.send(sceneKey(name))
	}
	return nil
}

// sceneKey is the key message of a key's name.
func sceneKey(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "ctrl+c": tea.KeyCtrlC,
	}
	if k == "space" {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}
