package offline

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// geminiBodyOf writes a request as the genai SDK does, with n turns of a
// call and its result after the request.
func geminiBodyOf(n int, request string) []byte {
	contents := []string{`{"parts":[{"text":"` + request + `"}],"role":"user"}`}
	for i := range n {
		contents = append(contents,
			fmt.Sprintf(`{"parts":[{"functionCall":{"args":{"path":"f%d"},"name":"read_file"},"thoughtSignature":"c2ln"}],"role":"model"}`, i),
			fmt.Sprintf(`{"parts":[{"functionResponse":{"name":"read_file","response":{"output":"text %d"}}}],"role":"user"}`, i))
	}
	return []byte(`{"contents":[` + strings.Join(contents, ",") + `],"generationConfig":{},"tools":[{"functionDeclarations":[{"name":"read_file"},{"name":"notes__echo"}]}]}`)
}

// ollamaBodyOf writes an /api/chat request as the ollama client does, in
// JSON mode (its tools described in the system prompt).
func ollamaBodyOf(n int, request string) []byte {
	msgs := []string{`{"role":"system","content":"## Tools\n\n### read_file\nReads.\n\n### notes__echo\nEchoes.\n"}`, `{"role":"user","content":"` + request + `"}`}
	for i := range n {
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":"{\"thought\":\"t\",\"tool_call\":{\"name\":\"read_file\",\"input\":{\"path\":\"f%d\"}}}"}`, i),
			fmt.Sprintf(`{"role":"user","content":"{\"tool_result\":{\"name\":\"read_file\",\"result\":\"text %d\"}}"}`, i))
	}
	return []byte(`{"model":"llama3.1:8b","messages":[` + strings.Join(msgs, ",") + `],"stream":false,"format":"json"}`)
}

// openAIBodyOf writes a chat completions request with n calls and results.
func openAIBodyOf(n int, request string) []byte {
	msgs := []string{`{"role":"user","content":"` + request + `"}`}
	for i := range n {
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":"","tool_calls":[{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f%d\"}"}}]}`, i, i),
			fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":"text %d"}`, i, i))
	}
	return []byte(`{"messages":[` + strings.Join(msgs, ",") + `],"model":"llama3.1:8b",` + strings.Replace(openAITools, `]`, `,{"type":"function","function":{"name":"notes__echo"}}]`, 1) + `}`)
}

// cachedParser parses one dialect's bodies; fresh reports whether it uses a
// new cache for every body.
type cachedParser func(body []byte, fresh bool) (modelCall, error)

func turnParsers() map[string]cachedParser {
	return map[string]cachedParser{
		"gemini": cached(func(b requestBody, c *geminiSide) (modelCall, error) {
			m, _, err := parseGemini(b, c)
			return m, err
		}),
		"ollama": cached(func(b requestBody, c *turnCache[ollamaTurns]) (modelCall, error) {
			_, m, err := parseOllamaChat(b, c)
			return m, err
		}),
		"openai": cached(func(b requestBody, c *turnCache[openAITurns]) (modelCall, error) {
			_, m, err := parseOpenAIChat(b, c)
			return m, err
		}),
	}
}

// cached is parse with one cache kept across the bodies it is given, or
// a new one for a body read fresh.
func cached[C any](parse func(requestBody, *C) (modelCall, error)) cachedParser {
	var kept C
	return func(body []byte, fresh bool) (modelCall, error) {
		if fresh {
			return parse(requestBody{b: body}, new(C))
		}
		return parse(requestBody{b: body}, &kept)
	}
}

// Reading only what is new gives the same conversation as reading it all,
// in every dialect, whether the next request continues the last one, sends
// it again, forks from an earlier point or starts over; and a
// conversation once handed out is never changed by the requests after it.
func TestTurnsReadOnlyWhatIsNew(t *testing.T) {
	bodyOf := map[string]func(int, string) []byte{"gemini": geminiBodyOf, "ollama": ollamaBodyOf, "openai": openAIBodyOf}
	for name, parse := range turnParsers() {
		t.Run(name, func(t *testing.T) {
			b := bodyOf[name]
			bodies := [][]byte{b(0, "go"), b(1, "go"), b(2, "go"), b(2, "go"),
				b(1, "go"),             // a fork: shorter than the last
				b(2, "go"), b(3, "go"), // and on from it
				b(3, "other request"),
				[]byte(strings.Replace(string(b(3, "other request")), `":[`, `": [ `, 1)), // laid out by hand
				b(4, "other request")}
			var handed, fresh []conversation
			for i, body := range bodies {
				got, err := parse(body, false)
				if err != nil {
					t.Fatalf("body %d: %v", i, err)
				}
				want, err := parse(body, true)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.conv, want.conv) || got.tools != want.tools {
					t.Fatalf("body %d: read with the cache\n%+v\nwithout\n%+v", i, got.conv, want.conv)
				}
				if !reflect.DeepEqual(got.conv.mcpTools, []string{"notes__echo"}) {
					t.Fatalf("body %d: MCP tools %q, want the declared notes__echo", i, got.conv.mcpTools)
				}
				handed = append(handed, got.conv)
				fresh = append(fresh, want.conv)
			}
			for i := range handed {
				if !reflect.DeepEqual(handed[i], fresh[i]) {
					t.Fatalf("body %d: its conversation changed after later requests\n%+v\nwant\n%+v", i, handed[i], fresh[i])
				}
			}
			// A broken continuation is an error, as it would be read whole.
			bad := []byte(strings.Replace(string(b(5, "other request")), `f4`, `"f4`, 1))
			if _, err := parse(bad, false); err == nil {
				t.Fatal("a broken new turn was accepted")
			}
		})
	}
}

// Gemini's general errors keep their words when only the new contents are
// read.
func TestGeminiBrokenContinuation(t *testing.T) {
	var g geminiSide
	if _, _, err := parseGemini(requestBody{b: geminiBodyOf(4, "go")}, &g); err != nil {
		t.Fatal(err)
	}
	bad := []byte(strings.Replace(string(geminiBodyOf(5, "go")), `"f4"`, `f4`, 1))
	if _, _, err := parseGemini(requestBody{b: bad}, &g); err == nil || !strings.Contains(err.Error(), "Invalid JSON payload") {
		t.Fatalf("a broken new content: %v", err)
	}
}

// The tools are read once and again only when they change.
func TestGeminiToolsFollowTheRequest(t *testing.T) {
	var cache toolsCache
	for i, c := range []struct {
		tools string
		want  bool
		mcp   []string
	}{
		{`[{"functionDeclarations":[{"name":"read_file"}]}]`, true, nil},
		{`[{"functionDeclarations":[{"name":"read_file"}]}]`, true, nil},
		{``, false, nil},
		{`[{"functionDeclarations":[]}]`, false, nil},
		{`{"function_declarations":[{"name":"list_files"},{"name":"ev__echo"}]}`, true, []string{"ev__echo"}},
		{`[{"googleSearch":{}}]`, false, nil},
	} {
		got := cache.read([]byte(c.tools))
		if got.any != c.want || !reflect.DeepEqual(got.mcp, c.mcp) {
			t.Errorf("request %d (tools %s): declares functions = %v, MCP tools %q; want %v, %q", i, c.tools, got.any, got.mcp, c.want, c.mcp)
		}
	}
}

// MCP tools are those the request declares as NAME__tool: not a name that
// only appears in the conversation, nor one the separator does not split
// into a server and a tool.
func TestMCPToolNames(t *testing.T) {
	got := mcpTools([]string{"read_file", "notes__echo", "ev__elicit.form", "notes__echo", "__x", "9ev__x", "ev__", "e v__x", "a___b"})
	want := []string{"notes__echo", "ev__elicit.form", "a___b"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mcpTools = %q, want %q", got, want)
	}
	// A call to an MCP tool in the history does not declare it.
	var g geminiSide
	body := []byte(strings.Replace(string(geminiBodyOf(1, "go")), `"name":"read_file"},"thoughtSignature"`, `"name":"old__tool"},"thoughtSignature"`, 1))
	m, _, err := parseGemini(requestBody{b: body}, &g)
	if err != nil {
		t.Fatal(err)
	}
	if slices := m.conv.mcpTools; len(slices) != 1 || slices[0] != "notes__echo" {
		t.Fatalf("MCP tools %q, want only the declared notes__echo", slices)
	}
}
