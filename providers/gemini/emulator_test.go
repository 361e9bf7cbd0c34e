package gemini

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/providers/offline"
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

// emulatorBody holds a body as the Tutor of a new Server would.
func emulatorBody(b []byte) offline.Body { return offline.NewTutor(offline.Config{}).Body(b) }

// Gemini's general errors keep their words when only the new contents are
// read.
func TestGeminiBrokenContinuation(t *testing.T) {
	var g geminiSide
	if _, _, err := parseGemini(emulatorBody(geminiBodyOf(4, "go")), &g); err != nil {
		t.Fatal(err)
	}
	bad := []byte(strings.Replace(string(geminiBodyOf(5, "go")), `"f4"`, `f4`, 1))
	if _, _, err := parseGemini(emulatorBody(bad), &g); err == nil || !strings.Contains(err.Error(), "Invalid JSON payload") {
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

// A call to an MCP tool in the history does not declare it: the MCP tools
// come from the declarations.
func TestMCPToolsAreDeclared(t *testing.T) {
	var g geminiSide
	body := []byte(strings.Replace(string(geminiBodyOf(1, "go")), `"name":"read_file"},"thoughtSignature"`, `"name":"old__tool"},"thoughtSignature"`, 1))
	if !strings.Contains(string(body), "old__tool") {
		t.Fatal("the history holds no call to old__tool")
	}
	m, _, err := parseGemini(emulatorBody(body), &g)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.MCPTools(); !reflect.DeepEqual(got, []string{"notes__echo"}) {
		t.Fatalf("MCP tools %q, want only the declared notes__echo", got)
	}
}
