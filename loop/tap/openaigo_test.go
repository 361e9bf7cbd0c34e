package tap_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/glassbox-dev/glassbox/loop/tap"
)

// Done when (issue 30) names the openai-go client: the official
// github.com/openai/openai-go/v3, as an agent written with it calls, driven
// straight (whatever client providers/openai is built on; this is a test's
// import only, so it does not enter the binary). Streamed (SSE), through
// the tap to the emulator: its request held, edited (what-if), sent; its
// reply held and delivered; then c, and its next call runs through to the
// answer with nothing held.
func TestStepOpenAIGo(t *testing.T) {
	up := newRecordingUpstream(t)
	x := startTap(t, tap.Options{Upstream: up.URL, Mode: tap.Stepping})
	client := oa.NewClient(option.WithBaseURL(x.URL+"/v1/"), option.WithAPIKey(openAIKey), option.WithMaxRetries(0))
	tools := []oa.ChatCompletionToolUnionParam{}
	for _, tl := range glassboxTools() {
		tools = append(tools, oa.ChatCompletionFunctionTool(oa.FunctionDefinitionParam{
			Name: tl.Name, Description: oa.String(tl.Description), Parameters: oa.FunctionParameters(tl.JSONSchema())}))
	}
	msgs := []oa.ChatCompletionMessageParamUnion{oa.SystemMessage("You are an agent written with openai-go."), oa.UserMessage("list the files")}
	call := func() (oa.ChatCompletion, error) {
		stream := client.Chat.Completions.NewStreaming(context.Background(), oa.ChatCompletionNewParams{Model: "llama3.1:8b", Messages: msgs, Tools: tools})
		defer stream.Close()
		var acc oa.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		return acc.ChatCompletion, stream.Err()
	}
	type answer struct {
		c   oa.ChatCompletion
		err error
	}
	got := make(chan answer, 1)
	go func() { c, err := call(); got <- answer{c, err} }()

	h := x.held(t, 1)[0]
	if h.Kind != tap.HeldRequest || h.Family != "openai" || !h.Editable || len(up.received()) != 0 {
		t.Fatalf("hold %v %s editable %v; the service was sent %d", h.Kind, h.Family, h.Editable, len(up.received()))
	}
	body, _ := x.Body(h.ID)
	if err := x.Edit(h.ID, bytes.Replace(body, []byte("list the files"), []byte("read hello.py"), 1)); err != nil {
		t.Fatal(err)
	}
	x.Step()
	if h = x.held(t, 1)[0]; h.Kind != tap.HeldReply || !bytes.Contains(h.Exchange.ResponseBody, []byte("data: ")) {
		t.Fatalf("the reply held: %v %q", h.Kind, h.Exchange.ResponseBody)
	}
	if rs := up.received(); len(rs) != 1 || !strings.Contains(rs[0], "read hello.py") {
		t.Fatalf("the service was sent %q", rs)
	}
	select {
	case a := <-got:
		t.Fatalf("openai-go had its reply while it was held: %+v", a)
	default:
	}
	x.Step()
	a := <-got
	if a.err != nil || len(a.c.Choices) != 1 || len(a.c.Choices[0].Message.ToolCalls) != 1 || a.c.Choices[0].Message.ToolCalls[0].Function.Name != "read_file" {
		t.Fatalf("openai-go read %+v, %v: want read_file (the edited request)", a.c, a.err)
	}

	// c: the result goes back and the answer comes through unheld.
	x.Continue()
	tc := a.c.Choices[0].Message.ToolCalls[0]
	msgs = append(msgs, a.c.Choices[0].Message.ToParam(), oa.ToolMessage("print('hello')\n", tc.ID))
	c, err := call()
	if err != nil || len(c.Choices) != 1 || len(x.Now().Holds) != 0 {
		t.Fatalf("after c: %+v %v, holds %+v", c, err, x.Now().Holds)
	}
	steps := x.waitEdges(t, "new_event context_ready tool_call allow* tool_success* observed context_ready "+edgeOf(c))
	if !steps[2].Edited {
		t.Fatal("the step that sent the edited request is not marked edited")
	}
}

// edgeOf is the edge the emulator's second reply takes, and what follows.
func edgeOf(c oa.ChatCompletion) string {
	if len(c.Choices[0].Message.ToolCalls) > 0 {
		return "tool_call"
	}
	return "final_answer delivered*"
}
