package openai

// go-openai writes the request body, but three things glassbox sends it
// cannot write, because its fields drop a zero value (omitempty):
//
//   - "temperature":0 — the same reply to the same request, so a lesson, a
//     replay and a live run can be compared (go-openai issue #9: its
//     Temperature is a float32 that omits 0);
//   - "content":"" on a message with nothing to say: an empty reply fed back
//     after the loop's feedback, an empty tool result. The API requires
//     content on such messages;
//   - "description":"" for a tool that has none (an MCP server's may not);
//   - no "stream" in a unary request (go-openai writes "stream":false).
//
// settler adds them to the bytes go-openai wrote, before the wire capture
// sees them, so what the Raw payload shows and a cassette keeps is what
// went out — and is what glassbox sent with openai-go, so cassettes
// recorded before replay unchanged (TestOpenAIGoCassettesReplay).

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// settler is the HTTP client go-openai sends through.
type settler struct{ client *http.Client }

func (s settler) Do(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Method != http.MethodPost {
		return s.client.Do(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if body, err = settle(body); err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	return s.client.Do(req)
}

// afterMessages is where go-openai's ChatCompletionRequest goes on after
// its messages: its fields are written in order — model, messages, the
// settings glassbox leaves unset (omitted), then stream, always. Nothing
// before it can hold these bytes: the model is a JSON string (a quote in it
// is escaped), and a message's keys are go-openai's own.
var afterMessages = []byte(`],"stream":`)

// settle returns body with temperature 0, every message's content, every
// tool's description and, in a unary request, no "stream".
func settle(body []byte) ([]byte, error) {
	end := bytes.Index(body, afterMessages)
	if end < 0 || !bytes.HasPrefix(body, []byte(`{"model":`)) {
		return nil, fmt.Errorf("go-openai wrote a request glassbox does not know how to complete (%d bytes)", len(body))
	}
	out := make([]byte, 0, len(body)+64)
	out = appendContents(out, body[:end+1]) // the messages, through their ]
	out = append(out, `,"temperature":0`...)
	rest := body[end+1:] // ,"stream":…
	switch {
	case bytes.HasPrefix(rest, []byte(`,"stream":false,`)):
		rest = rest[len(`,"stream":false`):]
	case bytes.HasPrefix(rest, []byte(`,"stream":false}`)):
		rest = rest[len(`,"stream":false`):]
	}
	return appendDescriptions(out, rest), nil
}

// A message go-openai wrote without content: its role, then the end of the
// object or its tool_call_id (an assistant's tool_calls stand for content).
var (
	roleKey   = []byte(`{"role":"`)
	noContent = [][]byte{[]byte(`}`), []byte(`,"tool_call_id":`)}
)

// appendContents appends msgs, giving each message written without
// content an empty one.
func appendContents(out, msgs []byte) []byte {
	for {
		i := bytes.Index(msgs, roleKey)
		if i < 0 {
			return append(out, msgs...)
		}
		j := i + len(roleKey)
		k := bytes.IndexByte(msgs[j:], '"') // the role is a plain word
		if k < 0 {
			return append(out, msgs...)
		}
		j += k + 1
		out = append(out, msgs[:j]...)
		msgs = msgs[j:]
		for _, after := range noContent {
			if bytes.HasPrefix(msgs, after) {
				out = append(out, `,"content":""`...)
				break
			}
		}
	}
}

// A tool as go-openai writes it (a map: its keys in order): its function,
// that function's name first.
var toolName = []byte(`{"function":{"name":"`)

// appendDescriptions appends rest (the request after its messages), giving
// each tool written without a description an empty one.
func appendDescriptions(out, rest []byte) []byte {
	for {
		i := bytes.Index(rest, toolName)
		if i < 0 {
			return append(out, rest...)
		}
		j := i + len(toolName)
		k := closingQuote(rest[j:])
		if k < 0 {
			return append(out, rest...)
		}
		j += k + 1
		out = append(out, rest[:j]...)
		rest = rest[j:]
		if !bytes.HasPrefix(rest, []byte(`,"description":`)) {
			out = append(out, `,"description":""`...)
		}
	}
}

// closingQuote is the index of the quote that ends the JSON string s
// starts inside, or -1.
func closingQuote(s []byte) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
