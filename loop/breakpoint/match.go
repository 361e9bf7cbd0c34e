package breakpoint

import (
	"net/url"
	"slices"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

// Step is what a breakpoint is tested on: a transition, and the dialect
// that made it. In the glass box a run's steps all have its dialect
// (loop.Engine.Dialect().Name); in a tap, the dialect of the exchange the
// step comes from. Dialect is any name or alias the providers' registry
// knows; "" falls back to the provider of the step's llm record, which
// tells the provider but not its tool mode.
type Step struct {
	loop.Transition
	Dialect string
}

// Source says where a token figure comes from.
type Source string

const (
	// Reported is the provider's own count: the input tokens of the
	// usage its reply reported.
	Reported Source = "reported"
	// Estimated is glassbox's estimate from the request's size, by
	// EstimateRule, when the provider reported none (or there is no reply
	// yet: a tap's request about to be forwarded).
	Estimated Source = "estimated"
)

// BytesPerToken is the estimate's rule: one token for every four bytes of
// the request body, the rule the offline simulation reports by and the
// status bar's ≈ figure uses.
const BytesPerToken = 4

// Tokens is the size of a model call's request in tokens, and where the
// figure comes from.
type Tokens struct {
	N      int
	Source Source
}

// Hit is a breakpoint that matched a step.
type Hit struct {
	// Index is the breakpoint's place in the list tested (0 is the first).
	Index      int
	Breakpoint Breakpoint
	// Seq is the step's number (loop.Transition.Seq).
	Seq int
	// Tokens and Bytes are the figures a tokens or bytes condition was
	// decided on; nil when the breakpoint has none.
	Tokens *Tokens
	Bytes  *int
}

// Match reports whether every condition of b holds on step s; the hit says
// what the size conditions measured. A breakpoint with no conditions never
// matches.
func (b Breakpoint) Match(s Step) (Hit, bool) {
	h := Hit{Breakpoint: b, Seq: s.Seq}
	if len(b.Conds) == 0 {
		return h, false
	}
	for _, c := range b.Conds {
		if !c.holds(s, &h) {
			return h, false
		}
	}
	return h, true
}

// The tests of the conditions, one per key (keys lists them).

func entersState(c Cond, s Step, _ *Hit) bool { return string(s.To) == c.Value }

func takesEdge(c Cond, s Step, _ *Hit) bool { return string(s.Edge) == c.Value }

func aboutTool(c Cond, s Step, _ *Hit) bool {
	return slices.ContainsFunc(ToolNames(s.Transition), c.text)
}

func hasVerdict(c Cond, s Step, _ *Hit) bool {
	return s.Decision != nil && string(s.Decision.Verdict) == c.Value
}

func inDialect(c Cond, s Step, _ *Hit) bool {
	provider, name := s.dialect()
	if c.provider != "" {
		return provider == c.provider
	}
	return name == c.dialect
}

func tokensAre(c Cond, s Step, h *Hit) bool {
	t, ok := TokensOf(s.Transition)
	if ok {
		h.Tokens = &t
	}
	return ok && c.compare(int64(t.N))
}

func bytesAre(c Cond, s Step, h *Hit) bool {
	n, ok := RequestBytes(s.Transition)
	if ok {
		h.Bytes = &n
	}
	return ok && c.compare(int64(n))
}

func toPath(c Cond, s Step, _ *Hit) bool {
	p, ok := RequestPath(s.Transition)
	return ok && c.text(p)
}

// text tests a name or path: equal, or matched by the glob.
func (c Cond) text(s string) bool {
	if c.Op == Glob {
		return glob(c.Value, s)
	}
	return s == c.Value
}

func (c Cond) compare(n int64) bool {
	switch c.Op {
	case Gt:
		return n > c.n
	case Ge:
		return n >= c.n
	case Lt:
		return n < c.n
	case Le:
		return n <= c.n
	}
	return false
}

// dialect is the provider and the dialect's name of the step ("" for what
// is not known).
func (s Step) dialect() (provider, name string) {
	if d, ok := backend.Lookup(s.Dialect); ok {
		return d.Provider, d.Name
	}
	if s.LLM != nil {
		if d, err := backend.For(s.LLM.Provider, ""); err == nil {
			return d.Provider, ""
		}
	}
	return "", ""
}

// ToolNames are the tools a step is about: the call it checks, runs or
// records, or, on a model's reply, every call the reply asks for.
func ToolNames(t loop.Transition) []string {
	if t.Tool != nil {
		return []string{t.Tool.Name}
	}
	if t.LLM == nil {
		return nil
	}
	names := make([]string, len(t.LLM.ToolCalls))
	for i, c := range t.LLM.ToolCalls {
		names[i] = c.Name
	}
	return names
}

// request is the exchange that carried the step's model call: the last one
// (a retried call made several; the last is the one answered). false when
// the step carries none (it is not a model call, or its exchanges were
// dropped to bound memory and live beside the session).
func request(t loop.Transition) (int, bool) {
	n := len(t.Exchanges)
	return n - 1, n > 0
}

// RequestBytes is the size of the body of the step's model call.
func RequestBytes(t loop.Transition) (int, bool) {
	i, ok := request(t)
	if !ok {
		return 0, false
	}
	return len(t.Exchanges[i].RequestBody), true
}

// RequestPath is the HTTP path of the step's model call, without the query.
func RequestPath(t loop.Transition) (string, bool) {
	i, ok := request(t)
	if !ok {
		return "", false
	}
	u, err := url.Parse(t.Exchanges[i].URL)
	if err != nil {
		return "", false
	}
	return u.Path, true
}

// TokensOf is the size of the step's model call's request in tokens: the
// input tokens the provider reported with its reply, or, when it reported
// none, an estimate from the request's bytes (BytesPerToken). false when the
// step carries no model call.
func TokensOf(t loop.Transition) (Tokens, bool) {
	if t.LLM != nil && t.LLM.Usage.InputTokens > 0 {
		return Tokens{N: t.LLM.Usage.InputTokens, Source: Reported}, true
	}
	n, ok := RequestBytes(t)
	if !ok {
		return Tokens{}, false
	}
	return Tokens{N: (n + BytesPerToken - 1) / BytesPerToken, Source: Estimated}, true
}

// glob reports whether pattern matches all of s: * stands for any run of
// characters (slashes too), ? for one character; everything else is itself.
func glob(pattern, s string) bool {
	p, r := []rune(pattern), []rune(s)
	pi, ri := 0, 0
	star, mark := -1, 0 // the last * seen, and where in s it started matching
	for ri < len(r) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == r[ri]) && p[pi] != '*':
			pi++
			ri++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ri
			pi++
		case star >= 0:
			mark++
			pi, ri = star+1, mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
