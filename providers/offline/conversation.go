package offline

import (
	"crypto/sha256"
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"
)

// Arg is one argument of a tool call. Arguments are kept as an ordered list
// so the JSON the tutor writes reads naturally (path before content).
type Arg struct {
	Key   string
	Value any
}

// Args is a tool call's argument object, in order.
type Args []Arg

// MarshalJSON writes args as a JSON object, keys in order.
func (a Args) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// str returns the argument key as a string ("" when absent or not a string).
func (a Args) str(key string) string {
	for _, kv := range a {
		if kv.Key == key {
			s, _ := kv.Value.(string)
			return s
		}
	}
	return ""
}

// Pairs are Args from keys and values in turn: Pairs("path", "hello.py").
// A key that is not a string, or a last key without a value, is left out.
func Pairs(kv ...any) Args {
	out := make(Args, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			out = append(out, Arg{Key: k, Value: kv[i+1]})
		}
	}
	return out
}

// ArgsFromMap turns a decoded JSON object into args, keys sorted so the
// result does not depend on map order.
func ArgsFromMap(m map[string]any) Args {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(Args, 0, len(keys))
	for _, k := range keys {
		out = append(out, Arg{k, m[k]})
	}
	return out
}

// ToolCall is one function call, the tutor's or one found in the history.
type ToolCall struct {
	ID   string
	Name string
	Args Args
}

// ToolResult is one tool result found in the history. Call is the call it
// answers, when the history let us pair them.
type ToolResult struct {
	CallID  string
	Name    string
	Content string
	IsError bool
	Call    *ToolCall
}

// TurnKind sorts the neutral conversation's entries.
type TurnKind int

const (
	TurnUser      TurnKind = iota // text a person wrote
	TurnFeedback                  // text the loop wrote about a malformed reply
	TurnAssistant                 // a model turn
	TurnResult                    // one tool result
)

// Turn is one entry of the neutral conversation: the three wire dialects are
// decoded into a list of these before the tutor looks at them.
type Turn struct {
	Kind  TurnKind
	Text  string     // user/feedback text; assistant text
	Calls []ToolCall // assistant tool calls
	// Malformed marks an assistant turn the loop could not use: JSON-mode
	// text that does not parse, or a Gemini turn with no parts.
	Malformed bool
	Result    ToolResult // itemResult
}

// final reports whether an assistant item ended its turn with an answer.
func (it Turn) final() bool {
	return it.Kind == TurnAssistant && !it.Malformed && len(it.Calls) == 0
}

// Conversation is what the tutor decides from: the latest request a person
// made, and everything that happened since, in order.
type Conversation struct {
	// quirks are the dialect's, as its emulator declared them.
	quirks *Quirks
	// request is the latest person's request, trimmed ("" if none).
	request string
	// lang is the request's language: the tutor answers in it.
	lang language
	// goLive is how the person reaches a real model, in lang (Config.GoLive);
	// "" for glassbox's flags.
	goLive string
	// steps are the assistant turns, tool results and loop feedback since
	// the request.
	steps []Turn
	// mcpTools are the MCP tools (NAME__tool) the request declares, in the
	// order it declares them (mcpTools).
	mcpTools []string
	// tally counts what the steps hold, kept as they are added, so a
	// script's question about a long turn does not read all of it again.
	tally tally
	// roles carry the tutor's calls over to the tools a foreign agent
	// declared (foreign.go); the zero value reads glassbox's own.
	roles roles
	// workdir is the working directory the agent said it works in, in
	// its system prompt or its first message ("" when it said none).
	workdir string
}

// tally is what the steps since the request add up to.
type tally struct {
	// results counts the tool results by tool name.
	results map[string]int
	// misfired: the model already produced something the loop could not
	// use (see conversation.misfired).
	misfired bool
}

// add counts one step.
func (t *tally) add(it Turn) {
	switch {
	case it.Kind == TurnFeedback, it.Kind == TurnAssistant && it.Malformed:
		t.misfired = true
	case it.Kind == TurnAssistant:
		t.misfired = t.misfired || slices.ContainsFunc(it.Calls, func(c ToolCall) bool { return c.Name == misfireToolName })
	case it.Kind == TurnResult:
		if t.results == nil {
			t.results = map[string]int{}
		}
		t.results[it.Result.Name]++
	}
}

// MCPTools lists the MCP tools among the names a request declares, in
// order, without repeats: those of the form NAME__tool, as
// tools/mcptool names them.
func MCPTools(declared []string) []string {
	var names []string
	for _, n := range declared {
		if isMCPToolName(n) && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// isMCPToolName reports whether name is NAME__tool: a server name that
// starts with a letter and holds letters, digits, _ and -, then "__",
// then a tool name of letters, digits, _, . and -.
func isMCPToolName(name string) bool {
	server, tool, ok := strings.Cut(name, "__")
	if !ok || server == "" || tool == "" || !isLetter(server[0]) {
		return false
	}
	return onlyOf(server, "_-") && onlyOf(tool, "_.-")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// onlyOf reports whether s holds only ASCII letters, digits and marks.
func onlyOf(s, marks string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && (c < '0' || c > '9') && !strings.ContainsRune(marks, rune(c)) {
			return false
		}
	}
	return true
}

// PromptToolNames are the tools a JSON-mode system prompt describes: each
// one heads its section ("### notes__echo", providers/ollama's
// JSONModeSystemPrompt).
func PromptToolNames(prompt string) []string {
	var names []string
	for line := range strings.Lines(prompt) {
		if name, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "### "); ok {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names
}

// Folder builds a conversation one item at a time, so a long session's
// conversation can be continued from where the last request left it
// instead of read again from its start (see turnCache). It finds the
// latest request and pairs each tool result with the call it answers.
//
// A user text is the loop's feedback, not a new request, when it follows a
// reply the loop could not use, or when it follows an unfinished turn and
// reads like feedback (see looksLikeFeedback). Everything else a user says
// starts a new turn.
type Folder struct {
	conv Conversation
	// turns sums the raw turns read so far, each chained to the sum of
	// those before it: the same conversation always has the same sum,
	// however much of it one request had to read (see digest).
	turns    [sha256.Size]byte
	pending  []*ToolCall // the latest turn's calls not yet answered
	prev     Turn
	havePrev bool
}

// NewFolder starts a conversation in a dialect with quirks q.
func NewFolder(q *Quirks) Folder {
	if q == nil {
		q = &Quirks{}
	}
	return Folder{conv: Conversation{quirks: q}}
}

// Call is the conversation so far as a model call: size is the request
// body's length, tools whether it declares any, mcp the MCP tools among
// them (MCPTools).
func (f Folder) Call(size int, tools bool, mcp []string) ModelCall {
	conv := f.conv
	conv.mcpTools = mcp
	return ModelCall{conv: conv, tools: tools, size: size, turns: f.turns}
}

// Sum chains one more raw turn into f.turns.
func (f *Folder) Sum(raw []byte) {
	h := sha256.New()
	h.Write(f.turns[:])
	h.Write(raw)
	h.Sum(f.turns[:0])
}

// Add folds the next item into the conversation.
func (f *Folder) Add(it Turn) {
	c := &f.conv
	switch it.Kind {
	case TurnUser, TurnFeedback:
		f.Look(it.Text)
		if f.havePrev && isFeedback(f.prev, it.Text) {
			it.Kind = TurnFeedback
			c.steps = append(c.steps, it)
		} else {
			it.Kind = TurnUser
			c.request = strings.TrimSpace(it.Text)
			c.lang = languageOf(c.request)
			c.steps = nil
			c.tally = tally{}
			f.pending = nil
		}
	case TurnAssistant:
		c.steps = append(c.steps, it)
		last := &c.steps[len(c.steps)-1]
		f.pending = f.pending[:0]
		for j := range last.Calls {
			f.pending = append(f.pending, &last.Calls[j])
		}
	case TurnResult:
		if k := matchCall(f.pending, it.Result); k >= 0 {
			it.Result.Call = f.pending[k]
			f.pending = slices.Delete(f.pending, k, k+1)
		}
		c.steps = append(c.steps, it)
	}
	if it.Kind != TurnUser {
		c.tally.add(it)
	}
	f.prev, f.havePrev = it, true
}

// Look keeps the working directory an agent says it works in (its system
// prompt, its first message: foreign.go), until one is found. Add looks
// at every user text; an emulator gives it the system prompt.
func (f *Folder) Look(text string) {
	if f.conv.workdir == "" {
		f.conv.workdir = workdirIn(text)
	}
}

// Fork returns a folder that continues from f's state without changing
// what f (or a conversation handed out from it) holds: the steps are
// shared up to their length and copied on the first add. The items'
// calls are shared; nothing changes them once read.
func (f Folder) Fork() Folder {
	g := f
	g.conv.steps = slices.Clip(f.conv.steps)
	g.conv.tally.results = maps.Clone(f.conv.tally.results)
	g.pending = slices.Clone(f.pending)
	return g
}

// matchCall returns the index of the pending call r answers: by call id when
// both have one, else the first call with r's name, else the first call.
func matchCall(pending []*ToolCall, r ToolResult) int {
	if len(pending) == 0 {
		return -1
	}
	if r.CallID != "" {
		for i, c := range pending {
			if c.ID == r.CallID {
				return i
			}
		}
	}
	for i, c := range pending {
		if c.Name == r.Name {
			return i
		}
	}
	return 0
}

// isFeedback decides whether a user text that follows prev was written by
// the loop rather than a person.
func isFeedback(prev Turn, text string) bool {
	switch {
	case prev.Kind == TurnAssistant && prev.Malformed:
		return true
	case prev.final():
		return false
	}
	return looksLikeFeedback(text)
}

// looksLikeFeedback reports whether text reads like the loop's note about a
// reply it could not use. The markers are phrases such notes use; a person
// asking a new question rarely writes them, and never right after an
// unfinished turn.
func looksLikeFeedback(text string) bool {
	markers := []string{
		"malformed", "could not be parsed", "could not parse", "couldn't parse",
		"cannot be parsed", "not valid json", "invalid json", "parse error",
		"unparseable", "your last reply", "your previous reply",
		"malformed_function_call", "finish reason", "finishreason",
	}
	lower := strings.ToLower(text)
	for _, m := range markers {
		if strings.Contains(lower, m) {
			return true
		}
	}
	return false
}

// resultFor returns the latest result of a call to name whose argument key
// names the same file as want ("./hello.py" and "hello.py" are one file).
// An empty key matches any call to name.
func (c Conversation) resultFor(name, key, want string) (ToolResult, bool) {
	for i := len(c.steps) - 1; i >= 0; i-- {
		r := c.steps[i].Result
		if c.steps[i].Kind != TurnResult || r.Name != name {
			continue
		}
		if key == "" {
			return r, true
		}
		if r.Call != nil && samePath(r.Call.Args.str(key), want) {
			return r, true
		}
	}
	return ToolResult{}, false
}

// count returns how many results of tool name arrived since the request.
func (c Conversation) count(name string) int { return c.tally.results[name] }

// misfired reports whether the model already produced something the loop
// could not use in this turn: a malformed reply, the loop's feedback about
// one, or a call to a tool that does not exist.
func (c Conversation) misfired() bool { return c.tally.misfired }

// samePath compares two workspace paths after cleaning.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return path.Clean(a) == path.Clean(b)
}

// ResultText turns a tool result payload of any JSON type into text.
func ResultText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// LooksLikeErrorText reports whether a native-mode tool message (which has
// no is_error flag on the wire) reports a failure.
func LooksLikeErrorText(content string) bool {
	t := strings.ToLower(strings.TrimSpace(content))
	for _, p := range []string{"error", "denied", "tool error", "failed", "unknown tool", "not allowed"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	// "The person denied this call." and the like: a refusal in the first
	// line. (File contents come back whole, so a later line cannot trip it.)
	first, _, _ := strings.Cut(t, "\n")
	for _, w := range []string{"denied", "declined", "not approved", "rejected"} {
		if strings.Contains(first, w) {
			return true
		}
	}
	var obj map[string]any
	if json.Unmarshal([]byte(content), &obj) == nil {
		if _, ok := obj["error"]; ok {
			return true
		}
		if b, _ := obj["is_error"].(bool); b {
			return true
		}
	}
	return false
}
