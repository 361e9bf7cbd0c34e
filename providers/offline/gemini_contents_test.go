package offline

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sdkBody writes a request as the SDK does, with n turns of a call and
// its result after the request.
func sdkBody(n int, request string) []byte {
	contents := []string{`{"parts":[{"text":"` + request + `"}],"role":"user"}`}
	for i := range n {
		contents = append(contents,
			fmt.Sprintf(`{"parts":[{"functionCall":{"args":{"path":"f%d"},"name":"read_file"},"thoughtSignature":"c2ln"}],"role":"model"}`, i),
			fmt.Sprintf(`{"parts":[{"functionResponse":{"name":"read_file","response":{"output":"text %d"}}}],"role":"user"}`, i))
	}
	return []byte(`{"contents":[` + strings.Join(contents, ",") + `],"generationConfig":{},"tools":[{"functionDeclarations":[{"name":"read_file"}]}]}`)
}

// Reading only what is new gives the same conversation as reading it all.
func TestGeminiContentsReadsOnlyWhatIsNew(t *testing.T) {
	var cache geminiContents
	bodies := [][]byte{sdkBody(0, "go"), sdkBody(1, "go"), sdkBody(2, "go"), sdkBody(2, "go"),
		sdkBody(1, "go"),                   // a fork: shorter than the last
		sdkBody(2, "go"), sdkBody(3, "go"), // and on from it
		sdkBody(3, "other request"),
		[]byte(`{"contents": [{"parts":[{"text":"spaced"}],"role":"user"}]}`),
		sdkBody(4, "other request")}
	var handed, fresh []conversation
	for i, body := range bodies {
		got, _, err := parseGemini(body, &cache)
		if err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
		want, _, err := parseGemini(body, &geminiContents{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.conv, want.conv) || got.tools != want.tools {
			t.Fatalf("body %d: read with the cache\n%+v\nwithout\n%+v", i, got.conv, want.conv)
		}
		handed = append(handed, got.conv)
		fresh = append(fresh, want.conv)
	}
	// A conversation once handed out is never changed by the requests
	// read after it (they continue it, or fork from an earlier point).
	for i := range handed {
		if !reflect.DeepEqual(handed[i], fresh[i]) {
			t.Fatalf("body %d: its conversation changed after later requests\n%+v\nwant\n%+v", i, handed[i], fresh[i])
		}
	}
	if cache.n != 9 {
		t.Fatalf("the cache holds %d contents, want the last request's 9", cache.n)
	}
	// A broken continuation is an error, as it would be read whole.
	bad := []byte(strings.Replace(string(sdkBody(5, "other request")), `"f4"`, `f4`, 1))
	if _, _, err := parseGemini(bad, &cache); err == nil || !strings.Contains(err.Error(), "Invalid JSON payload") {
		t.Fatalf("a broken new content: %v", err)
	}
}

// The tools are read once and again only when they change.
func TestGeminiContentsToolsFollowTheRequest(t *testing.T) {
	var cache geminiContents
	for i, c := range []struct {
		tools string
		want  bool
	}{
		{`[{"functionDeclarations":[{"name":"read_file"}]}]`, true},
		{`[{"functionDeclarations":[{"name":"read_file"}]}]`, true},
		{``, false},
		{`[{"functionDeclarations":[]}]`, false},
		{`{"function_declarations":[{"name":"list_files"}]}`, true},
		{`[{"googleSearch":{}}]`, false},
	} {
		if got := cache.declaresFunctions([]byte(c.tools)); got != c.want {
			t.Errorf("request %d (tools %s): declares functions = %v, want %v", i, c.tools, got, c.want)
		}
	}
}
