// Package breakpoint is the small condition language that stops the glass
// box's `c` and decides which of a foreign agent's requests a tap holds. A
// breakpoint is one or more conditions on a step (a loop.Transition), joined
// by commas, all of which must hold:
//
//	state=CHECKING_POLICY          the step enters that state
//	edge=tool_call                 the step takes that edge
//	tool=write_file  tool~=write_* the step is about a call of that tool
//	verdict=DENY                   the security layer's verdict on it
//	dialect=NAME                   the step's dialect (any name or alias)
//	tokens>8000  bytes>40k         the size of its model call's request
//	path~=*:streamGenerateContent  the HTTP path of its model call
//
// Several breakpoints are or'ed: a run stops where any one matches. Parse
// reads one; Breakpoint.Match tests one step; a Watch is what a stepping
// front end keeps: it is fed every step and reports the breakpoint that
// begins to match there. docs/breakpoints.md is the page a person reads.
package breakpoint

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

// Op is a condition's operator.
type Op string

const (
	Eq   Op = "="  // exactly this value
	Glob Op = "~=" // the glob pattern matches (* any run of characters, ? one)
	Gt   Op = ">"
	Ge   Op = ">="
	Lt   Op = "<"
	Le   Op = "<="
)

// ops are the operators in the order they are tried on a condition's text:
// the two-character ones first.
var ops = []Op{Glob, Ge, Le, Eq, Gt, Lt}

// Key names what a condition asks about.
type Key string

const (
	KeyState   Key = "state"
	KeyEdge    Key = "edge"
	KeyTool    Key = "tool"
	KeyVerdict Key = "verdict"
	KeyDialect Key = "dialect"
	KeyTokens  Key = "tokens"
	KeyBytes   Key = "bytes"
	KeyPath    Key = "path"
)

// keySpec is one condition of the language: its name, its operators, how
// its value is read, and whether it holds on a step (recording what a size
// condition measured in the hit).
type keySpec struct {
	key   Key
	ops   []Op
	read  func(c *Cond) error
	holds func(c Cond, s Step, h *Hit) bool
}

// keys is the language: every condition, the operators it takes, and how its
// value is read. The order is the one the docs and messages use.
var keys = []keySpec{
	{KeyState, []Op{Eq}, readState, entersState},
	{KeyEdge, []Op{Eq}, readEdge, takesEdge},
	{KeyTool, []Op{Eq, Glob}, readText, aboutTool},
	{KeyVerdict, []Op{Eq}, readVerdict, hasVerdict},
	{KeyDialect, []Op{Eq}, readDialect, inDialect},
	{KeyTokens, []Op{Gt, Ge, Lt, Le}, readNumber, tokensAre},
	{KeyBytes, []Op{Gt, Ge, Lt, Le}, readNumber, bytesAre},
	{KeyPath, []Op{Eq, Glob}, readText, toPath},
}

// Conditions lists the forms a condition takes, for messages and help:
// "state=, edge=, tool=|tool~=, verdict=, dialect=, tokens>|>=|<|<=, …".
func Conditions() string {
	var out []string
	for _, k := range keys {
		form := string(k.key) + string(k.ops[0])
		for _, op := range k.ops[1:] {
			if k.ops[0] == Gt {
				form += "|" + string(op)
			} else {
				form += "|" + string(k.key) + string(op)
			}
		}
		out = append(out, form)
	}
	return strings.Join(out, ", ")
}

// Cond is one condition: a key, an operator and a value.
type Cond struct {
	Key   Key
	Op    Op
	Value string // as it will be shown: state, edge and verdict in their own case
	n     int64  // tokens, bytes: the value as a number
	// dialect: the provider every dialect of which matches (a provider's
	// name or alias), or the one dialect's name.
	provider, dialect string
}

// holds tests the condition on step s by its key's test (keys); a key the
// language does not have holds nowhere.
func (c Cond) holds(s Step, h *Hit) bool {
	for _, k := range keys {
		if k.key == c.Key {
			return k.holds(c, s, h)
		}
	}
	return false
}

func (c Cond) String() string { return string(c.Key) + string(c.Op) + c.Value }

// Breakpoint is one expression: conditions that must all hold on one step.
type Breakpoint struct {
	Conds []Cond
}

// String is the breakpoint as it is shown and compared: its conditions,
// each in its own spelling, joined by commas.
func (b Breakpoint) String() string {
	parts := make([]string, len(b.Conds))
	for i, c := range b.Conds {
		parts[i] = c.String()
	}
	return strings.Join(parts, ",")
}

// OnState is the breakpoint the glass box's `b` key sets: state=s.
func OnState(s loop.State) Breakpoint {
	return Breakpoint{Conds: []Cond{{Key: KeyState, Op: Eq, Value: string(s)}}}
}

// Parse reads one expression, such as "tool=write_file,verdict=DENY". Its
// error names the part that is wrong and says what is allowed there; it is a
// sentence (history/sentence), so a front end can say it in the reader's
// language.
func Parse(expr string) (Breakpoint, error) {
	if strings.TrimSpace(expr) == "" {
		return Breakpoint{}, sentence.Errorf("--break %q: the expression is empty; write at least one condition, such as state=CHECKING_POLICY or tool=write_file (the conditions are %s)", expr, Conditions())
	}
	var b Breakpoint
	for i, part := range strings.Split(expr, ",") {
		c, err := parseCond(part)
		if err != nil {
			return Breakpoint{}, sentence.Errorf("--break %q, condition %d: %w", expr, i+1, err)
		}
		b.Conds = append(b.Conds, c)
	}
	return b, nil
}

// ParseAll reads every --break value, in order.
func ParseAll(exprs []string) ([]Breakpoint, error) {
	out := make([]Breakpoint, 0, len(exprs))
	for _, e := range exprs {
		b, err := Parse(e)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// parseCond reads one condition: NAME OP VALUE, spaces allowed around each.
func parseCond(text string) (Cond, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Cond{}, sentence.Errorf("it is empty (two commas in a row, or one at an end); the conditions are %s", Conditions())
	}
	at := strings.IndexAny(text, "=~<>!")
	if at < 0 {
		return Cond{}, sentence.Errorf("%q has no operator: write NAME=VALUE, NAME~=GLOB or NAME>NUMBER; the conditions are %s", text, Conditions())
	}
	name := Key(strings.ToLower(strings.TrimSpace(text[:at])))
	i := slices.IndexFunc(keys, func(k keySpec) bool { return k.key == name })
	if i < 0 {
		return Cond{}, sentence.Errorf("unknown condition %q in %q; the conditions are %s", string(name), text, Conditions())
	}
	k := keys[i]
	rest := text[at:]
	op := Op("")
	for _, o := range ops {
		if strings.HasPrefix(rest, string(o)) {
			op = o
			break
		}
	}
	if op == "" || !slices.Contains(k.ops, op) {
		return Cond{}, sentence.Errorf("%q: %s takes %s", text, string(k.key), opList(k.ops))
	}
	c := Cond{Key: k.key, Op: op, Value: strings.TrimSpace(rest[len(op):])}
	if c.Value == "" {
		return Cond{}, sentence.Errorf("%q has no value after %s", text, string(k.key)+string(op))
	}
	if err := k.read(&c); err != nil {
		return Cond{}, err
	}
	return c, nil
}

func opList(list []Op) string {
	s := make([]string, len(list))
	for i, o := range list {
		s[i] = string(o)
	}
	return strings.Join(s, " ")
}

func readState(c *Cond) error {
	for _, s := range loop.States {
		if strings.EqualFold(c.Value, string(s)) {
			c.Value = string(s)
			return nil
		}
	}
	names := make([]string, len(loop.States))
	for i, s := range loop.States {
		names[i] = string(s)
	}
	return sentence.Errorf("%s: there is no state %q; the states are %s", c.Key, c.Value, strings.Join(names, ", "))
}

// Edges lists every edge of the state machine, in the order of loop.Table.
func Edges() []loop.Edge {
	var out []loop.Edge
	for _, a := range loop.Table {
		if !slices.Contains(out, a.Edge) {
			out = append(out, a.Edge)
		}
	}
	return out
}

func readEdge(c *Cond) error {
	edges := Edges()
	for _, e := range edges {
		if strings.EqualFold(c.Value, string(e)) {
			c.Value = string(e)
			return nil
		}
	}
	names := make([]string, len(edges))
	for i, e := range edges {
		names[i] = string(e)
	}
	return sentence.Errorf("%s: there is no edge %q; the edges are %s", c.Key, c.Value, strings.Join(names, ", "))
}

var verdicts = []loop.Verdict{loop.Allow, loop.DenyVerdict, loop.RequireConfirm}

func readVerdict(c *Cond) error {
	for _, v := range verdicts {
		if strings.EqualFold(c.Value, string(v)) {
			c.Value = string(v)
			return nil
		}
	}
	return sentence.Errorf("%s: there is no verdict %q; the verdicts are %s, %s and %s", c.Key, c.Value, loop.Allow, loop.DenyVerdict, loop.RequireConfirm)
}

// readDialect resolves a dialect's name through the providers' registry: a
// provider's name or alias (every tool mode of it matches), or one
// dialect's name or alias.
func readDialect(c *Cond) error {
	name := strings.ToLower(c.Value)
	if d, err := backend.For(name, ""); err == nil {
		c.Value, c.provider = name, d.Provider
		return nil
	}
	if d, ok := backend.Lookup(name); ok {
		c.Value, c.dialect = name, d.Name
		return nil
	}
	var names []string
	for _, d := range backend.Dialects() {
		names = append(names, d.Names()...)
	}
	return sentence.Errorf("%s: there is no dialect %q; the dialects are %s", c.Key, c.Value, strings.Join(names, ", "))
}

// readText reads a name or a path: printable, without spaces (a comma
// ends the condition).
func readText(c *Cond) error {
	if strings.IndexFunc(c.Value, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return sentence.Errorf("%s: %q has a space or a control character in it; names and paths have none", c.Key, c.Value)
	}
	return nil
}

// readNumber reads a size: digits, perhaps with a fraction, and an optional
// k (thousand) or M (million): 8000, 40k, 1.5M.
func readNumber(c *Cond) error {
	v := c.Value
	mult := 1.0
	switch {
	case strings.HasSuffix(v, "k") || strings.HasSuffix(v, "K"):
		mult, v = 1e3, v[:len(v)-1]
	case strings.HasSuffix(v, "M"):
		mult, v = 1e6, v[:len(v)-1]
	}
	ok := v != "" && strings.Count(v, ".") <= 1 && strings.Trim(v, "0123456789.") == "" && strings.Trim(v, ".") != ""
	f, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil || f*mult > 1e15 {
		return sentence.Errorf("%s: %q is not a size; write a whole number, with k (thousand) or M (million) if you like: 8000, 40k, 1.5M", c.Key, c.Value)
	}
	c.n = int64(f*mult + 0.5)
	return nil
}

// Flags collects the values of a repeated --break flag (a flag.Value); read
// them with ParseAll once the flags are parsed, so a mistake gets the
// message Parse gives rather than the flag package's.
type Flags []string

func (f *Flags) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(*f, " ")
}

// Set adds one value.
func (f *Flags) Set(v string) error {
	*f = append(*f, v)
	return nil
}
