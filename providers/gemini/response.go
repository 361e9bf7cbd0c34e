package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// readResponse fills out from a GenerateContent reply. It walks the parts
// itself rather than calling resp.Text() or resp.FunctionCalls(), which
// log.Printf warnings that would scribble over the TUI.
//
// out.Exchanges must already be set: a few fields the SDK drops on the
// Gemini API (finishMessage) are read from the captured wire bytes.
func readResponse(resp *genai.GenerateContentResponse, tools []history.ToolSpec, out *providers.Response) error {
	out.Usage = usage(resp.UsageMetadata)
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		if fb := resp.PromptFeedback; fb != nil && fb.BlockReason != "" {
			return providers.Errorf(providers.KindBlocked, 0, nil, "Gemini blocked the prompt (blockReason %s) and gave no answer; rephrase the request or start a new conversation without the blocked content.",
				fb.BlockReason)
		}
		return providers.Errorf(providers.KindOther, 0, nil, "Gemini answered with no candidates and no reason; look at the raw response, then try the request again.")
	}
	cand := resp.Candidates[0]
	msg, err := replyMessage(cand.Content, tools)
	if err != nil {
		return err
	}
	out.Message = msg
	out.FinishReason = string(cand.FinishReason)
	switch {
	case len(msg.ToolCalls) > 0:
		out.StopReason = providers.StopToolUse
	case cand.FinishReason == genai.FinishReasonMaxTokens:
		out.StopReason = providers.StopMaxTokens
	default:
		out.StopReason = providers.StopEndTurn
	}
	return judgeFinish(cand, out)
}

// replyMessage is a candidate's content as a history message: its text,
// its thought and its function calls, and the content itself kept for the
// next request.
func replyMessage(content *genai.Content, tools []history.ToolSpec) (history.Message, error) {
	if content == nil {
		content = &genai.Content{Role: genai.RoleModel}
	}
	native, err := json.Marshal(content)
	if err != nil {
		return history.Message{}, providers.Errorf(providers.KindOther, 0, err, "could not keep Gemini's reply for the next request: %v", err)
	}
	msg := history.Message{
		Role:   history.RoleAssistant,
		Native: &history.Native{Provider: Name, Data: native},
	}
	var text, thought strings.Builder
	for _, part := range content.Parts {
		switch {
		case part == nil:
		case part.FunctionCall != nil:
			call, err := toolCall(part.FunctionCall, tools)
			if err != nil {
				return history.Message{}, err
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
		case part.Thought:
			thought.WriteString(part.Text)
		default:
			text.WriteString(part.Text)
		}
	}
	msg.Text = text.String()
	msg.Thought = thought.String()
	return msg, nil
}

// judgeFinish reads what the finish reason says of the reply in out: a
// call Gemini could not use, a blocked or empty reply, one cut at the token
// limit before it said anything.
func judgeFinish(cand *genai.Candidate, out *providers.Response) error {
	msg := out.Message
	empty := len(msg.ToolCalls) == 0 && strings.TrimSpace(msg.Text) == ""
	switch {
	case cand.FinishReason == genai.FinishReasonMalformedFunctionCall, cand.FinishReason == genai.FinishReasonUnexpectedToolCall:
		out.Malformed = malformedCall(cand.FinishReason, finishMessage(cand, out.Exchanges))
		out.Fault = fmt.Sprintf("function calls Gemini could not use (finishReason %s)", cand.FinishReason)
	case empty && blockedFinish(cand.FinishReason):
		return providers.Errorf(providers.KindBlocked, 0, nil, "Gemini stopped its reply with finishReason %s and sent no content: the answer was blocked (%s); rephrase the request, or start a new conversation without that content.",
			cand.FinishReason, blockedWhy(cand.FinishReason))
	case empty && cand.FinishReason == genai.FinishReasonMaxTokens:
		out.Fault = "cut off at the token limit before any text or call (finishReason MAX_TOKENS)"
		out.Malformed = "Your last reply was cut off at the token limit (finishReason MAX_TOKENS) before it held any text or function call"
		if msg.Thought != "" {
			out.Malformed += " (the limit was spent on thinking)"
		}
		out.Malformed += ". Call a function, or answer, more briefly."
	case empty:
		out.Fault = fmt.Sprintf("empty: no text and no function call (finishReason %s)", orNone(string(cand.FinishReason)))
		out.Malformed = fmt.Sprintf("Your last reply was empty (finishReason %s): no text and no function call. Call a function, or give your final answer as text.", orNone(string(cand.FinishReason)))
	}
	return nil
}

// blockedFinish reports whether a finish reason means Gemini withheld the
// reply's content (safety, recitation, a blocklist…).
func blockedFinish(r genai.FinishReason) bool {
	switch r {
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return true
	}
	return false
}

// blockedWhy says in words what a blocking finish reason means.
func blockedWhy(r genai.FinishReason) string {
	switch r {
	case genai.FinishReasonSafety, genai.FinishReasonImageSafety:
		return "its safety filters flagged it"
	case genai.FinishReasonRecitation, genai.FinishReasonImageRecitation:
		return "it would have recited training data too closely"
	case genai.FinishReasonBlocklist:
		return "it contained a blocked term"
	case genai.FinishReasonSPII:
		return "it contained sensitive personal information"
	}
	return "it was prohibited content"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func toolCall(fc *genai.FunctionCall, tools []history.ToolSpec) (history.ToolCall, error) {
	args, err := orderedArgs(fc.Args, paramOrder(fc.Name, tools))
	if err != nil {
		return history.ToolCall{}, providers.Errorf(providers.KindOther, 0, err,
			"could not read the arguments Gemini sent to %s: %v", fc.Name, err)
	}
	return history.ToolCall{ID: fc.ID, Name: fc.Name, Args: args}, nil
}

// paramOrder is the declared parameter order of the named tool.
func paramOrder(name string, tools []history.ToolSpec) []string {
	for _, t := range tools {
		if t.Name == name && t.HasSchema() {
			order, _ := t.SchemaProperties()
			return order
		}
		if t.Name == name {
			order := make([]string, len(t.Params))
			for i, p := range t.Params {
				order[i] = p.Name
			}
			return order
		}
	}
	return nil
}

// orderedArgs encodes a call's arguments as a JSON object. The SDK decodes
// "args" into a Go map, which forgets the order the model wrote; the
// declared parameter order (path before content) reads best, so it comes
// first, then any undeclared keys in sorted order.
func orderedArgs(args map[string]any, order []string) (json.RawMessage, error) {
	keys := make([]string, 0, len(args))
	for _, k := range order {
		if _, ok := args[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range args {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	keys = append(keys, rest...)

	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := history.MarshalPlain(k)
		vb, err := history.MarshalPlain(args[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// malformedCall is the sentence the loop sends back to the model when
// Gemini itself could not turn the model's output into a valid call.
func malformedCall(reason genai.FinishReason, detail string) string {
	msg := fmt.Sprintf("Your last function call was malformed (finishReason %s), so nothing was run; call one of the declared functions again with valid arguments.", reason)
	if detail != "" {
		msg += " Gemini said: " + detail
	}
	return msg
}

// finishMessage is the candidate's finishMessage, which says what was wrong
// with a malformed call. genai v1.77.0 keeps it only on Vertex AI, so on the
// Gemini API it is read from the last response body on the wire.
func finishMessage(cand *genai.Candidate, exchanges []providers.Exchange) string {
	if cand.FinishMessage != "" || len(exchanges) == 0 {
		return cand.FinishMessage
	}
	var wire struct {
		Candidates []struct {
			FinishMessage string `json:"finishMessage"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(lastDocument(exchanges[len(exchanges)-1].ResponseBody), &wire); err != nil || len(wire.Candidates) == 0 {
		return ""
	}
	return wire.Candidates[0].FinishMessage
}

// lastDocument is a response body's JSON: the body itself, or in a stream
// of server-sent events the data of the last event (the one that carries
// the finishReason).
func lastDocument(body []byte) []byte {
	if !bytes.HasPrefix(body, []byte("data:")) {
		return body
	}
	var last []byte
	for _, line := range bytes.Split(body, []byte("\n")) {
		if data, ok := bytes.CutPrefix(bytes.TrimSuffix(line, []byte("\r")), []byte("data:")); ok {
			last = data
		}
	}
	return last
}

// usage maps Gemini's token counts. Thinking tokens are billed as output, so
// they count as output here; tool-use prompt tokens count as input.
func usage(m *genai.GenerateContentResponseUsageMetadata) providers.Usage {
	if m == nil {
		return providers.Usage{}
	}
	return providers.Usage{
		InputTokens:    int(m.PromptTokenCount + m.ToolUsePromptTokenCount),
		OutputTokens:   int(m.CandidatesTokenCount + m.ThoughtsTokenCount),
		ThoughtsTokens: int(m.ThoughtsTokenCount),
		CachedTokens:   int(m.CachedContentTokenCount),
	}
}
