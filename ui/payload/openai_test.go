package payload

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/providers/openai"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// The OpenAI-compatible dialect's stream shows in the payload pane as
// Ollama's does: each server-sent event on its line, with the time its read
// arrived, down to data: [DONE].
func TestOpenAIStreamShowsEventByEvent(t *testing.T) {
	p, err := openai.New(openai.Config{BaseURL: "http://openai.offline.invalid/v1", Transport: backend.SimulatedTransport(offline.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Call(context.Background(), providers.Request{
		Messages: []history.Message{{Role: history.RoleUser, Text: "list the files"}},
		Tools:    []history.ToolSpec{{Name: "list_files", Description: "list", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := NewRenderer().Lines(theme.New(true), View{Exchanges: resp.Exchanges, Response: true}, 200)
	text := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.Contains(text, "as they arrived") || !strings.Contains(text, "[DONE]") {
		t.Fatalf("the stream is not shown event by event:\n%s", text)
	}
	events := strings.Count(text, `"object":"chat.completion.chunk"`)
	if events < 5 || events != strings.Count(string(resp.Exchanges[0].ResponseBody), "chat.completion.chunk") {
		t.Fatalf("%d events shown:\n%s", events, text)
	}
}
