// Package rosetta shows one conversation state as every dialect would send
// it — Gemini, OpenAI chat completions, Ollama's native tools and Llama's
// JSON mode — side by side, row by row: the system prompt, the tool
// declarations, each turn. Each request is built by the dialect's own
// provider through its real SDK client (its HTTP transport captures the
// body instead of sending it), read back with package wire, and aligned
// with the conversation. Each row carries a caption that says what
// differs and why, and each cell what its dialect cannot carry.
package rosetta

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// RowKind says what a row holds.
type RowKind string

const (
	RowSystem RowKind = "system"
	RowTools  RowKind = "tools"
	RowUser   RowKind = "user"
	RowCall   RowKind = "model_call"
	RowResult RowKind = "tool_result"
	RowAnswer RowKind = "model_text"
)

// The captions: what differs on a row and why. They are sentences a
// person reads (ui/lang holds their Japanese).
const (
	CaptionSystem = "Gemini keeps the system prompt out of the conversation, in systemInstruction; the chat APIs send it as the first message, with role system. JSON mode's system message is longer: it also describes every tool and the one reply shape the model must write."
	CaptionTools  = "Gemini, OpenAI and Ollama declare tools in a field of their own, each parameter list a JSON Schema (Gemini's is an OpenAPI subset, its types in capitals). JSON mode has no tool field: the tools are paragraphs of the system prompt, and the call is parsed out of the model's text."
	CaptionUser   = "A person's words travel the same way in all four: a message with role user (in Gemini, a Content with one text part)."
	CaptionCall   = "Gemini sends the call back as a functionCall part, its arguments an object; OpenAI as tool_calls with an id and the arguments as a JSON string; Ollama as tool_calls with the arguments as an object; JSON mode as the text the model wrote, {\"tool_call\": …}."
	CaptionResult = "Gemini returns a result as a functionResponse part of a user turn; OpenAI as a message with role tool and the call's id; Ollama as role tool with tool_name; JSON mode as a user message {\"tool_result\": …}, since the model has no tool role to read."
	CaptionAnswer = "A final answer is text in all four; JSON mode's is the reply object the model wrote, {\"response\": …}."
)

// Captions lists every caption, for the catalog's test.
func Captions() []string {
	return []string{CaptionSystem, CaptionTools, CaptionUser, CaptionCall, CaptionResult, CaptionAnswer}
}

// What a dialect cannot carry, named on its cell (Cell.Lost); ui/lang
// holds their Japanese.
const (
	LostSignature = "the thought signature: only Gemini carries it, and Gemini 3 refuses a conversation without it"
	LostReasoning = "the model's reasoning: this API has no place to send it back"
)

// Column is one dialect's request.
type Column struct {
	Dialect string `json:"dialect"`
	Label   string `json:"label"`
	Method  string `json:"method,omitempty"`
	URL     string `json:"url,omitempty"`
	Body    []byte `json:"-"`
	// Request is the body read back (package wire).
	Request *wire.Request `json:"request,omitempty"`
	// Error says why the request could not be built at all.
	Error string `json:"error,omitempty"`
	// Refused are the tools this dialect's provider could not describe,
	// each with the provider's reason; the request was built without them.
	Refused []string `json:"refused,omitempty"`
	// Rebuilt, when set, is why the provider could not send back its own
	// turns as they were written (Gemini CLI's thought signature is no
	// base64, which the genai SDK cannot hold): they were built again from
	// what every dialect shares, and what that loses is named on their rows.
	Rebuilt string `json:"rebuilt,omitempty"`
	native  string // the history.Native provider of this dialect's turns
}

// Cell is one dialect's part of a row.
type Cell struct {
	// Spans are where the row's parts lie in the column's body; Text is
	// their bytes, joined by newlines.
	Spans []wire.Span `json:"spans,omitempty"`
	Text  string      `json:"text"`
	// Lost names what the dialect cannot carry on this row.
	Lost []string `json:"lost,omitempty"`
}

// Row is one part of the conversation in every dialect.
type Row struct {
	Kind RowKind `json:"kind"`
	// Message is the conversation's message the row shows (-1 for the
	// system prompt and the tools).
	Message int    `json:"message"`
	Caption string `json:"caption"`
	Cells   []Cell `json:"cells"`
}

// Table is a conversation state in every dialect.
type Table struct {
	Columns []Column `json:"columns"`
	Rows    []Row    `json:"rows"`
}

// errCaptured ends a call once its request is captured.
var errCaptured = errors.New("rosetta: captured, not sent")

// capture is an HTTP transport that keeps the request and sends nothing.
type capture struct{ x *providers.Exchange }

func (c capture) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	*c.x = providers.Exchange{Method: r.Method, URL: r.URL.String(), RequestBody: body}
	return nil, errCaptured
}

// Build lays state out in every registered dialect.
func Build(ctx context.Context, state providers.Request) (*Table, error) {
	state.Messages = history.WithoutNotes(state.Messages)
	t := &Table{}
	for _, d := range backend.Dialects() {
		t.Columns = append(t.Columns, column(ctx, d, state))
	}
	t.Rows = rows(state, t.Columns)
	return t, nil
}

// column builds and reads one dialect's request. A tool the provider
// refuses is left out, with its reason, so the rest still shows.
func column(ctx context.Context, d dialect.Descriptor, state providers.Request) Column {
	col := Column{Dialect: d.Name, Label: d.Label, native: d.Native}
	x, err := send(ctx, d, state)
	if err != nil && len(x.RequestBody) == 0 && len(state.Tools) > 0 {
		var kept []history.ToolSpec
		for _, spec := range state.Tools {
			one := providers.Request{System: state.System, Tools: []history.ToolSpec{spec}}
			if x1, err := send(ctx, d, one); len(x1.RequestBody) == 0 && err != nil {
				col.Refused = append(col.Refused, err.Error())
				continue
			}
			kept = append(kept, spec)
		}
		state.Tools = kept
		x, err = send(ctx, d, state)
	}
	if len(x.RequestBody) == 0 && err != nil && hasNative(state.Messages, d.Native) {
		col.Rebuilt = err.Error()
		x, err = send(ctx, d, withoutNative(state, d.Native))
	}
	if len(x.RequestBody) == 0 {
		col.Error = "no request was built"
		if err != nil {
			col.Error = err.Error()
		}
		return col
	}
	col.Method, col.URL, col.Body = x.Method, x.URL, x.RequestBody
	codec, _, ok := backend.Wire().Detect(x.Method, x.URL)
	if !ok {
		col.Error = "glassbox cannot read its own request to " + x.URL
		return col
	}
	if col.Request, err = codec.DecodeRequest(x.URL, x.RequestBody); err != nil {
		col.Error = err.Error()
	}
	return col
}

func hasNative(msgs []history.Message, provider string) bool {
	for _, m := range msgs {
		if m.Native != nil && m.Native.Provider == provider {
			return true
		}
	}
	return false
}

// withoutNative is state with the provider's own encodings of its turns
// left out: they are built again from the neutral fields.
func withoutNative(state providers.Request, provider string) providers.Request {
	msgs := make([]history.Message, len(state.Messages))
	for i, m := range state.Messages {
		if m.Native != nil && m.Native.Provider == provider {
			m.Native = nil
		}
		msgs[i] = m
	}
	state.Messages = msgs
	return state
}

// send makes the call through the dialect's provider and SDK client, with
// a transport that keeps the request instead of sending it.
func send(ctx context.Context, d dialect.Descriptor, state providers.Request) (providers.Exchange, error) {
	var x providers.Exchange
	p, err := d.Open(ctx, dialect.Conn{StandIn: true, Transport: capture{&x}, Call: providers.CallOptions{NumPredict: -1}})
	if err != nil {
		return x, err
	}
	_, err = p.Call(ctx, state)
	if errors.Is(err, errCaptured) || len(x.RequestBody) > 0 {
		err = nil
	}
	return x, err
}

// rows aligns the columns with the conversation: the system prompt, the
// tools, then each message.
func rows(state providers.Request, cols []Column) []Row {
	out := []Row{
		{Kind: RowSystem, Message: -1, Caption: CaptionSystem},
		{Kind: RowTools, Message: -1, Caption: CaptionTools},
	}
	for i, m := range state.Messages {
		out = append(out, Row{Kind: rowKind(m), Message: i, Caption: caption(rowKind(m))})
	}
	for _, col := range cols {
		cells := make([][]wire.Segment, len(out))
		if col.Request != nil {
			at := align(state.Messages, col.Request.Messages)
			for _, s := range col.Request.Segments {
				switch {
				case s.Kind == wire.KindSystem:
					cells[0] = append(cells[0], s)
				case s.Kind == wire.KindTool:
					cells[1] = append(cells[1], s)
				case s.Message >= 0 && s.Message < len(at) && at[s.Message] >= 0:
					cells[2+at[s.Message]] = append(cells[2+at[s.Message]], s)
				}
			}
		}
		for r := range out {
			out[r].Cells = append(out[r].Cells, cell(col, cells[r], out[r], state))
		}
	}
	return out
}

func rowKind(m history.Message) RowKind {
	switch {
	case m.Role == history.RoleTool:
		return RowResult
	case m.Role == history.RoleAssistant && len(m.ToolCalls) > 0:
		return RowCall
	case m.Role == history.RoleAssistant:
		return RowAnswer
	}
	return RowUser
}

func caption(k RowKind) string {
	switch k {
	case RowCall:
		return CaptionCall
	case RowResult:
		return CaptionResult
	case RowAnswer:
		return CaptionAnswer
	}
	return CaptionUser
}

// cell gathers a column's parts of one row, and names what the dialect
// could not carry there.
func cell(col Column, segs []wire.Segment, row Row, state providers.Request) Cell {
	var c Cell
	var texts []string
	for _, s := range segs {
		c.Spans = append(c.Spans, s.Span)
		texts = append(texts, string(col.Body[s.Start:s.End]))
	}
	c.Text = strings.Join(texts, "\n")
	if row.Kind == RowTools {
		c.Lost = append(c.Lost, col.Refused...)
	}
	if row.Message >= 0 {
		m := state.Messages[row.Message]
		if m.Native != nil && bytes.Contains(m.Native.Data, []byte(`"thoughtSignature"`)) && !strings.Contains(c.Text, "thoughtSignature") {
			c.Lost = append(c.Lost, LostSignature)
		}
		if m.Native != nil && m.Native.Provider == col.native && col.Rebuilt != "" {
			c.Lost = append(c.Lost, col.Rebuilt)
		}
		if m.Thought != "" && col.Request != nil && !carriesThought(col.Request, row.Message, state) {
			c.Lost = append(c.Lost, LostReasoning)
		}
	}
	return c
}

// carriesThought says the column's request keeps the reasoning of message
// i somewhere.
func carriesThought(r *wire.Request, i int, state providers.Request) bool {
	at := align(state.Messages, r.Messages)
	for j, n := range at {
		if n == i && r.Messages[j].Thought != "" {
			return true
		}
	}
	return false
}

// align maps each message of a request read back to the conversation's
// message it carries (-1 for none). A dialect may drop a message (Gemini
// sends no empty turn) or split one (JSON mode writes one reply per call).
func align(conv, sent []history.Message) []int {
	at := make([]int, len(sent))
	for j := range at {
		at[j] = -1
	}
	i, j := 0, 0
	for i < len(conv) && j < len(sent) {
		m := conv[i]
		if !sameRole(m, sent[j]) {
			if m.Role == history.RoleAssistant && m.Text == "" && len(m.ToolCalls) == 0 {
				i++ // an empty reply some dialects do not send
				continue
			}
			at[j] = i // the best that can be said
			i, j = i+1, j+1
			continue
		}
		at[j] = i
		calls := len(sent[j].ToolCalls)
		j++
		for m.Role == history.RoleAssistant && calls < len(m.ToolCalls) && j < len(sent) && sent[j].Role == history.RoleAssistant {
			at[j] = i
			calls += len(sent[j].ToolCalls)
			j++
		}
		i++
	}
	return at
}

func sameRole(a, b history.Message) bool { return a.Role == b.Role }
