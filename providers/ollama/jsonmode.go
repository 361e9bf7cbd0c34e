package ollama

// JSON mode is the seed project's way to give tools to a model without native
// function calling: the system prompt describes the tools and one exact reply
// shape, Ollama's "format" constrains sampling to JSON, and glassbox parses
// the text the model wrote. This file holds both halves — the prompt the
// model reads and the parser that reads the model — so they cannot drift
// apart.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// The reply shape, as the prompt and the error feedback state it.
const (
	toolCallShape = `{"thought": "...", "tool_call": {"name": "<tool name>", "input": {...}}}`
	responseShape = `{"thought": "...", "response": "<your final answer>"}`
)

// JSONModeSystemPrompt is the system prompt of a JSON-mode request: the
// loop's own system text, then every tool with its parameters, then the
// exact reply shape and how tool results come back.
func JSONModeSystemPrompt(system string, tools []history.ToolSpec) string {
	var b strings.Builder
	if s := strings.TrimSpace(system); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}

	if len(tools) > 0 {
		b.WriteString("## Tools\n\nYou can call these tools. Each one takes a JSON object as its input.\n")
		for _, t := range tools {
			fmt.Fprintf(&b, "\n### %s\n", t.Name)
			if d := strings.TrimSpace(t.Description); d != "" {
				b.WriteString(d + "\n")
			}
			if t.HasSchema() {
				// A tool's own schema (an MCP server's) goes to the model
				// exactly as its author wrote it.
				fmt.Fprintf(&b, "Input: a JSON object matching this JSON Schema:\n%s\n", bytes.TrimSpace(t.Schema))
				continue
			}
			if len(t.Params) == 0 {
				b.WriteString("Parameters: none (use {} as the input).\n")
				continue
			}
			b.WriteString("Parameters:\n")
			for _, p := range t.Params {
				need := "optional"
				if p.Required {
					need = "required"
				}
				fmt.Fprintf(&b, "- %s (%s, %s)", p.Name, paramTypeName(p.Type), need)
				if d := strings.TrimSpace(p.Description); d != "" {
					b.WriteString(": " + d)
				}
				b.WriteString("\n")
			}
		}
		b.WriteString("\n")
	}

	b.WriteString("## How to reply\n\n")
	b.WriteString("Reply with exactly one JSON object and nothing else: no text before or after it, no code fences.\n\n")
	if len(tools) > 0 {
		fmt.Fprintf(&b, "To call a tool:\n%s\nFor example:\n%s\n\n", toolCallShape, exampleToolCall(tools[0]))
	}
	fmt.Fprintf(&b, "To give your final answer:\n%s\n", responseShape)
	if len(tools) > 0 {
		b.WriteString("\nUse \"tool_call\" or \"response\", never both, and call one tool per reply.\n")
		b.WriteString("The result of each call comes back in a user message of the form\n")
		b.WriteString(`{"tool_result": {"name": "<tool name>", "result": "..."}}` + "\n")
		b.WriteString(`with "is_error": true added when the call failed or was denied.` + "\n")
		b.WriteString("Read it, then decide your next step.\n")
	}
	return b.String()
}

// paramTypeName is how the prompt names a parameter type.
func paramTypeName(t history.ParamType) string {
	if t == history.TypeArray {
		return "array of strings"
	}
	return string(t)
}

// exampleToolCall is a concrete, valid tool call for the prompt: the tool's
// required parameters filled with placeholder values of the right type,
// spaced like the shapes above it.
func exampleToolCall(t history.ToolSpec) string {
	var input []string
	if t.HasSchema() {
		names, required := t.SchemaProperties()
		for _, n := range names {
			if required[n] {
				input = append(input, fmt.Sprintf("%s: %s", marshalPlain(n), marshalPlain("...")))
			}
		}
	}
	for _, p := range t.Params {
		if !p.Required {
			continue
		}
		var v any
		switch p.Type {
		case history.TypeInteger:
			v = 1
		case history.TypeBoolean:
			v = true
		case history.TypeArray:
			v = []string{"..."}
		default:
			v = "..."
		}
		input = append(input, fmt.Sprintf("%s: %s", marshalPlain(p.Name), marshalPlain(v)))
	}
	return fmt.Sprintf(`{"thought": "why this call is the next step", "tool_call": {"name": %s, "input": {%s}}}`,
		marshalPlain(t.Name), strings.Join(input, ", "))
}

// ReplySchema is the JSON Schema of a JSON-mode reply, sent as Ollama's
// "format" when Config.Schema is set: either a thought and a call to one of
// the tools (with that tool's own parameters as the input), or a thought and
// a response. Ollama turns it into a grammar, so the model cannot write
// anything else; the schema is not shown to the model, which is why the
// system prompt still describes the shape.
func ReplySchema(tools []history.ToolSpec) json.RawMessage {
	thought := orderedObject{{"type", "string"}}
	var calls []any
	for _, t := range tools {
		calls = append(calls, orderedObject{
			{"type", "object"},
			{"properties", orderedObject{
				{"name", orderedObject{{"type", "string"}, {"enum", []string{t.Name}}}},
				{"input", inputSchema(t)},
			}},
			{"required", []string{"name", "input"}},
		})
	}
	branches := []any{}
	if len(calls) > 0 {
		branches = append(branches, orderedObject{
			{"type", "object"},
			{"properties", orderedObject{{"thought", thought}, {"tool_call", orderedObject{{"anyOf", calls}}}}},
			{"required", []string{"thought", "tool_call"}},
		})
	}
	branches = append(branches, orderedObject{
		{"type", "object"},
		{"properties", orderedObject{{"thought", thought}, {"response", orderedObject{{"type", "string"}}}}},
		{"required", []string{"thought", "response"}},
	})
	if len(branches) == 1 {
		return marshalPlain(branches[0])
	}
	return marshalPlain(orderedObject{{"anyOf", branches}})
}

// inputSchema is a tool's parameters as a JSON Schema object, in the
// tool's own parameter order.
func inputSchema(t history.ToolSpec) any {
	if t.HasSchema() {
		return json.RawMessage(t.Schema)
	}
	props := orderedObject{}
	required := []string{}
	for _, p := range t.Params {
		prop := orderedObject{{"type", string(p.Type)}}
		if p.Type == history.TypeArray {
			prop = append(prop, field{"items", orderedObject{{"type", "string"}}})
		}
		if p.Description != "" {
			prop = append(prop, field{"description", p.Description})
		}
		props = append(props, field{p.Name, prop})
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return orderedObject{{"type", "object"}, {"properties", props}, {"required", required}}
}

// Reply is a JSON-mode reply that passed every check: a thought and either a
// tool call or a final response.
type Reply struct {
	Thought string
	// ToolCall is the requested call; nil when the reply is a final answer.
	ToolCall *ReplyToolCall
	// Response is the final answer when ToolCall is nil.
	Response string
	// Notes lists what the parser tolerated on the way (a code fence, prose
	// around the object, a second object), in the order it found them.
	Notes []string
}

// ReplyToolCall is the "tool_call" part of a reply.
type ReplyToolCall struct {
	Name string
	// Input is the argument object exactly as the model wrote it (white
	// space removed, key order kept); {} when the model gave none.
	Input json.RawMessage
}

// ParseReply reads the text a model wrote in JSON mode. It is tolerant of
// how real models wrap their JSON — surrounding white space, a ```json code
// fence, prose before or after the object, a second object after the first
// (the first complete object wins) — and strict about the object itself:
// exactly one of "tool_call" and "response" (a null counts as absent), a
// non-empty string "name", an object (or nothing) as "input", a string
// "response", a string "thought".
//
// The ParseStep is always returned and shows the pipeline: the raw text,
// the object extracted from it and the outcome. Exactly one of the reply and
// step.Error is set.
func ParseReply(raw string) (*Reply, *providers.ParseStep) {
	step := &providers.ParseStep{Raw: raw}
	fail := func(err error) (*Reply, *providers.ParseStep) {
		step.Error = err.Error()
		step.Outcome = "malformed: " + step.Error
		return nil, step
	}

	start, end, notes, earlier, err := extractObject(raw)
	if err != nil {
		return fail(err)
	}
	extracted := raw[start:end]

	reply, err := checkReply([]byte(extracted))
	if err != nil && earlier != nil {
		// A broken object came first; the later one is likely a piece of
		// it (or of the prose), so the first breakage is the real problem.
		return fail(earlier)
	}
	step.Extracted = extracted
	if err != nil {
		return fail(err)
	}
	reply.Notes = append(notes, reply.Notes...)

	if reply.ToolCall != nil {
		step.Outcome = fmt.Sprintf("tool_call %s %s", reply.ToolCall.Name, reply.ToolCall.Input)
	} else {
		step.Outcome = "response"
	}
	if len(reply.Notes) > 0 {
		step.Outcome += " (" + strings.Join(reply.Notes, "; ") + ")"
	}
	return reply, step
}

// extractObject finds the first complete JSON object in raw and returns its
// byte range, plus notes on what surrounded it.
//
// It tries each '{' in turn. After a failed attempt it resumes at the byte
// where that attempt broke, never inside the broken object: otherwise a
// reply whose outer object has a stray comma would "succeed" with its inner
// {"name": ..., "input": ...} and fail later with a misleading message. It
// also keeps the scan linear in the length of the reply.
//
// A '{' that looks like the start of an object ('{' then '"') and fails is
// the best explanation of what went wrong: it is the error when nothing
// succeeds, and it comes back as earlier when a later '{' succeeded, in case
// that later object turns out not to be a reply. Braces in prose ("{path}")
// explain nothing and are only reported when there is nothing better.
func extractObject(raw string) (start, end int, notes []string, earlier, err error) {
	if strings.TrimSpace(raw) == "" {
		return 0, 0, nil, nil, errors.New("the reply is empty; it must be one JSON object")
	}

	var firstErr, firstObjectErr error
	from := 0
	for from < len(raw) {
		i := strings.IndexByte(raw[from:], '{')
		if i < 0 {
			break
		}
		start = from + i
		looksLikeObject := mayStartObject(raw, start)
		if firstErr != nil && !looksLikeObject {
			// Prose like "{read_file}": skip it without a full decode. (The
			// first attempt is always decoded, for its error message.)
			from = start + 1
			continue
		}
		n, brokeAt, decodeErr := decodeObjectAt(raw, start)
		if decodeErr == nil {
			end = start + n
			return start, end, surroundings(raw, start, end), firstObjectErr, nil
		}
		if firstErr == nil {
			firstErr = decodeErr
		}
		if looksLikeObject && firstObjectErr == nil {
			firstObjectErr = decodeErr
		}
		from = max(brokeAt, start+1)
	}
	switch {
	case firstObjectErr != nil:
		return 0, 0, nil, nil, firstObjectErr
	case firstErr != nil:
		return 0, 0, nil, nil, firstErr
	}
	return 0, 0, nil, nil, fmt.Errorf("no JSON object found in the reply (it starts %s)", quoteStart(raw))
}

// mayStartObject reports whether the '{' at raw[start] can open a JSON
// object: after white space, an object goes on with a key ('"') or ends
// ('}'). A '{' at the very end may be a reply cut off after one byte.
func mayStartObject(raw string, start int) bool {
	rest := strings.TrimLeft(raw[start+1:], " \t\r\n")
	return rest == "" || rest[0] == '"' || rest[0] == '}'
}

// decodeObjectAt decodes one JSON value starting at raw[start] (a '{') and
// returns its length in bytes or, on failure, the offset of the byte where
// decoding broke (len(raw) when the text ran out).
func decodeObjectAt(raw string, start int) (n, brokeAt int, err error) {
	dec := json.NewDecoder(strings.NewReader(raw[start:]))
	var obj json.RawMessage
	err = dec.Decode(&obj)
	if err == nil {
		return int(dec.InputOffset()), 0, nil
	}
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &syntaxErr):
		at := start + int(syntaxErr.Offset) - 1
		at = max(start, min(at, len(raw)-1))
		return 0, at, fmt.Errorf("invalid JSON at offset %d (near %s): %v", at, quoteNear(raw, at), syntaxErr)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return 0, len(raw), fmt.Errorf("the reply ends before the JSON object that opens at offset %d is complete (was it cut off?)", start)
	default:
		return 0, len(raw), fmt.Errorf("invalid JSON at offset %d: %v", start, err)
	}
}

// surroundings describes what the parser skipped around the object.
func surroundings(raw string, start, end int) []string {
	var notes []string
	before := strings.TrimSpace(raw[:start])
	after := strings.TrimSpace(raw[end:])
	fenced := strings.HasSuffix(before, "```json") || strings.HasSuffix(before, "```JSON") || strings.HasSuffix(before, "```")
	if fenced && strings.HasPrefix(after, "```") {
		notes = append(notes, "took the object out of a code fence")
		before = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(before, "json"), "JSON"), "```"))
		after = strings.TrimSpace(after[3:])
	}
	if before != "" {
		notes = append(notes, "ignored text before the object")
	}
	if after != "" {
		if i := strings.IndexByte(after, '{'); i >= 0 {
			if _, _, err := decodeObjectAt(after, i); err == nil {
				notes = append(notes, "ignored a second JSON object after the first")
				return notes
			}
		}
		notes = append(notes, "ignored text after the object")
	}
	return notes
}

// checkReply applies the reply rules to one JSON object.
func checkReply(obj []byte) (*Reply, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obj, &fields); err != nil {
		// extractObject already decoded it; this cannot fail on valid JSON.
		return nil, fmt.Errorf("the reply object could not be read: %v", err)
	}
	present := func(key string) bool {
		v, ok := fields[key]
		return ok && jsonKind(v) != "null"
	}

	reply := &Reply{}
	if present("thought") {
		if err := json.Unmarshal(fields["thought"], &reply.Thought); err != nil {
			return nil, fmt.Errorf(`"thought" must be a string, not %s`, withArticle(jsonKind(fields["thought"])))
		}
	}

	hasCall, hasResponse := present("tool_call"), present("response")
	switch {
	case hasCall && hasResponse:
		return nil, errors.New(`reply has both "tool_call" and "response"; send exactly one of them`)
	case !hasCall && !hasResponse:
		return nil, fmt.Errorf(`reply has neither "tool_call" nor "response" (its keys: %s)`, keyList(fields))
	case hasResponse:
		if err := json.Unmarshal(fields["response"], &reply.Response); err != nil {
			return nil, fmt.Errorf(`"response" must be a string, not %s`, withArticle(jsonKind(fields["response"])))
		}
	default:
		call, err := checkToolCall(fields["tool_call"])
		if err != nil {
			return nil, err
		}
		reply.ToolCall = call
	}

	var unknown []string
	for key := range fields {
		switch key {
		case "thought", "tool_call", "response":
		default:
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		reply.Notes = append(reply.Notes, "ignored unknown keys "+keyList(toSet(unknown)))
	}
	return reply, nil
}

// checkToolCall applies the rules for the "tool_call" value.
func checkToolCall(v json.RawMessage) (*ReplyToolCall, error) {
	if kind := jsonKind(v); kind != "object" {
		return nil, fmt.Errorf(`"tool_call" must be an object like {"name": "...", "input": {...}}, not %s`, withArticle(kind))
	}
	var call map[string]json.RawMessage
	if err := json.Unmarshal(v, &call); err != nil {
		return nil, fmt.Errorf(`"tool_call" could not be read: %v`, err)
	}

	nameJSON, ok := call["name"]
	if !ok {
		return nil, fmt.Errorf(`"tool_call" has no "name" (its keys: %s)`, keyList(call))
	}
	var name string
	if err := json.Unmarshal(nameJSON, &name); err != nil {
		return nil, fmt.Errorf(`"tool_call.name" must be a string, not %s`, withArticle(jsonKind(nameJSON)))
	}
	if strings.TrimSpace(name) == "" {
		return nil, errors.New(`"tool_call.name" is empty; it must name one of the tools`)
	}

	input, ok := call["input"]
	if !ok || jsonKind(input) == "null" {
		// A tool without parameters may be called with no input, but if the
		// arguments sit under another key, running the tool with {} would
		// silently lose them.
		for key := range call {
			if key != "name" && key != "input" {
				return nil, fmt.Errorf(`"tool_call" has no "input" but has %q; put the tool's arguments in "input"`, key)
			}
		}
		return &ReplyToolCall{Name: name, Input: json.RawMessage(`{}`)}, nil
	}
	if kind := jsonKind(input); kind != "object" {
		return nil, fmt.Errorf(`"tool_call.input" must be a JSON object, not %s`, withArticle(kind))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, input); err != nil {
		return nil, fmt.Errorf(`"tool_call.input" could not be read: %v`, err)
	}
	return &ReplyToolCall{Name: name, Input: compact.Bytes()}, nil
}

// malformedFeedback is what the model is told after a reply that could not
// be used: the exact parse error, then the shape again.
func malformedFeedback(parseErr string, cutOff bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your last reply could not be used: %s.", parseErr)
	if cutOff {
		b.WriteString(" It was cut off at the token limit; keep the reply shorter.")
	}
	b.WriteString("\nReply with exactly one JSON object and nothing else, either\n")
	b.WriteString(toolCallShape + "\nor\n" + responseShape)
	return b.String()
}

// jsonKind names the type of a JSON value from its first byte.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// withArticle puts "a" or "an" before a JSON type name.
func withArticle(kind string) string {
	switch kind {
	case "object", "array":
		return "an " + kind
	case "null", "nothing":
		return kind
	}
	return "a " + kind
}

// keyList lists an object's keys, sorted and quoted: "a", "b".
func keyList[V any](m map[string]V) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, fmt.Sprintf("%q", k))
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

func toSet(keys []string) map[string]struct{} {
	set := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		set[k] = struct{}{}
	}
	return set
}

// quoteStart shows the first few characters of s for an error message.
func quoteStart(s string) string {
	return snippet(s, 0, 0, 12)
}

// quoteNear shows the text just before byte offset at and a little after
// it: the place where a JSON syntax error sits.
func quoteNear(s string, at int) string {
	return snippet(s, at, 15, 5)
}

// snippet shows s[at-before : at+after], cut on rune boundaries, in
// backquotes with newlines and tabs made visible; %q quoting would bury a
// JSON fragment under backslashes.
func snippet(s string, at, before, after int) string {
	from, to := max(0, at-before), min(len(s), at+after)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	part := s[from:to]
	unreadable := func(r rune) bool { return r == '`' || (unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t') }
	if strings.ContainsFunc(part, unreadable) || !utf8.ValidString(part) {
		return fmt.Sprintf("%q", part)
	}
	return "`" + strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(part) + "`"
}

// orderedObject is a JSON object whose keys marshal in the order given.
// encoding/json sorts map keys, and a reply shape reads better with
// "thought" first.
type orderedObject []field

type field struct {
	Key   string
	Value any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshalPlain(f.Key))
		b.WriteByte(':')
		v, err := history.MarshalPlain(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalPlain encodes v as compact JSON without escaping <, > and & (the
// text is read by a model and a learner, not embedded in HTML). It is for
// values that always encode: strings, ordered objects, slices of them.
func marshalPlain(v any) []byte {
	b, err := history.MarshalPlain(v)
	if err != nil {
		return []byte("null")
	}
	return b
}
