package wire_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decode finds the codec by method and path, as a tap does, and decodes.
func decode(t *testing.T, target string, body []byte) *wire.Request {
	t.Helper()
	c, route, ok := backend.Wire().Detect("POST", target)
	if !ok || route != wire.ModelCall {
		t.Fatalf("POST %s: no codec takes it as a model call (route %d)", target, route)
	}
	r, err := c.DecodeRequest(target, body)
	if err != nil {
		t.Fatalf("POST %s: %v", target, err)
	}
	checkCover(t, r, body)
	return r
}

// checkCover checks the promise of every codec: the segments cover the
// body byte for byte, in order, and every message and tool has its own.
func checkCover(t *testing.T, r *wire.Request, body []byte) {
	t.Helper()
	if err := wire.CheckSegments(r.Segments, len(body)); err != nil {
		t.Fatal(err)
	}
	var joined []byte
	msgs := map[int]bool{}
	tools := map[int]bool{}
	for _, s := range r.Segments {
		joined = append(joined, body[s.Start:s.End]...)
		if s.Message >= 0 {
			msgs[s.Message] = true
		}
		if s.Tool >= 0 {
			tools[s.Tool] = true
		}
		if (s.Kind == wire.KindInput) != (s.Message >= r.Input) {
			t.Errorf("segment %+v: kind %s but the input starts at message %d", s.Span, s.Kind, r.Input)
		}
	}
	if !bytes.Equal(joined, body) || r.Size != len(body) {
		t.Fatalf("the segments do not add up to the body (%d of %d bytes)", len(joined), len(body))
	}
	for i := range r.Messages {
		if !msgs[i] {
			t.Errorf("message %d (%s) has no segment", i, r.Messages[i].Role)
		}
	}
	for i := range r.Tools {
		if !tools[i] {
			t.Errorf("tool %d (%s) has no segment", i, r.Tools[i].Name)
		}
	}
}

// outline is the request's parts in order, framing left out: each
// segment's kind, with the label of a tool or a setting.
func outline(r *wire.Request) string {
	var out []string
	for _, s := range r.Segments {
		switch s.Kind {
		case wire.KindFraming:
		case wire.KindTool, wire.KindSettings:
			out = append(out, string(s.Kind)+":"+s.Label)
		default:
			out = append(out, string(s.Kind))
		}
	}
	return strings.Join(out, " ")
}

func roles(msgs []history.Message) string {
	var out []string
	for _, m := range msgs {
		r := string(m.Role)
		if len(m.ToolCalls) > 0 {
			var names []string
			for _, c := range m.ToolCalls {
				names = append(names, c.Name)
			}
			r += "→" + strings.Join(names, ",")
		}
		if m.Result != nil {
			r += "←" + m.Result.Name
		}
		out = append(out, r)
	}
	return strings.Join(out, " ")
}

// The documented request examples (testdata/examples, copied from the
// providers' docs) decode into their parts, whichever spelling they use.
func TestDocumentedRequests(t *testing.T) {
	for _, tc := range []struct {
		file, target            string
		dialect, model, outline string
		roles                   string
		stream                  bool
	}{
		{"gemini/cookbook_fc_turn1_request.json", "/v1beta/models/gemini-x:generateContent", "gemini", "gemini-x",
			"input tool:find_movies tool:find_theaters tool:get_showtimes", "user", false},
		{"gemini/cookbook_fc_turn3_request.json", "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", "gemini", "gemini-x",
			"user model_call tool_result model_text input tool:find_movies tool:find_theaters tool:get_showtimes",
			"user assistant→find_theaters tool←find_theaters assistant user", true},
		{"ollama/chat_tools_nonstream_request.json", "/api/chat", "llama:native", "llama3.2",
			"settings:model input tool:get_weather settings:stream", "user", false},
		{"ollama/toolcalling_mdx_single_followup_request.json", "/api/chat", "llama:native", "qwen3",
			"settings:model user model_call input settings:stream", "user assistant→get_temperature tool←get_temperature", false},
		{"ollama/chat_format_json_request.json", "/api/chat", "llama", "gpt-oss",
			"settings:model input settings:stream settings:format", "user", false},
		{"ollama/generate_json_mode_request.json", "/api/generate", "llama", "llama3.2",
			"settings:model input settings:format settings:stream", "user", false},
		{"ollama/chat_stream_request.json", "/api/chat", "llama:native", "llama3.2", "settings:model input", "user", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body := read(t, "examples/"+tc.file)
			r := decode(t, tc.target, body)
			if r.Dialect != tc.dialect || r.Model != tc.model || r.Stream != tc.stream {
				t.Errorf("dialect %q model %q stream %v, want %q %q %v", r.Dialect, r.Model, r.Stream, tc.dialect, tc.model, tc.stream)
			}
			if got := outline(r); got != tc.outline {
				t.Errorf("outline\n got %s\nwant %s", got, tc.outline)
			}
			if got := roles(r.Messages); got != tc.roles {
				t.Errorf("messages\n got %s\nwant %s", got, tc.roles)
			}
		})
	}
}

// The cookbook's snake_case request is read as its camelCase twin.
func TestGeminiSpellings(t *testing.T) {
	r := decode(t, "/v1beta/models/m:generateContent", read(t, "examples/gemini/cookbook_fc_turn1_request.json"))
	if len(r.Tools) != 3 || r.Tools[0].Name != "find_movies" || !bytes.Contains(r.Tools[0].Schema, []byte(`"required"`)) {
		t.Fatalf("tools %+v", r.Tools)
	}
	if r.Messages[0].Text != "Which theaters in Mountain View show Barbie movie?" {
		t.Fatalf("text %q", r.Messages[0].Text)
	}
	r = decode(t, "/v1beta/models/m:generateContent", read(t, "examples/gemini/cookbook_fc_turn3_request.json"))
	res := r.Messages[2].Result
	if res == nil || res.Name != "find_theaters" || !strings.Contains(res.Content, `"movie": "Barbie"`) {
		t.Fatalf("the function response %+v", res)
	}
}

// Responses: whole bodies, streams and errors, every family.
func TestDocumentedResponses(t *testing.T) {
	sse := map[string][]string{"Content-Type": {"text/event-stream"}}
	ndjson := map[string][]string{"Content-Type": {"application/x-ndjson"}}
	jsonCT := map[string][]string{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		file, family string
		status       int
		header       map[string][]string
		want         string // text|calls|finish|usage|complete|error
	}{
		{"gemini/resp_text_STOP__firebase_googleai.json", "gemini", 200, jsonCT,
			"text=Google's headquarters, also known as the Googleplex, is located in **Mountain View, California**.\n|calls=|finish=STOP|usage=7/22+0|complete=true|error="},
		{"gemini/resp_parallel_functionCalls__firebase_vertexai_dir.json", "gemini", 200, jsonCT,
			"text=|calls=sum,sum,sum|finish=STOP|usage=-|complete=true|error="},
		{"gemini/resp_functionCall_thoughtSignature_STOP_usage__firebase_googleai.json", "gemini", 200, jsonCT,
			"text=|calls=now|finish=STOP|usage=38/509+0|complete=true|error="},
		{"gemini/resp_finishReason_MAX_TOKENS__firebase_developerapi_bdf8af9.json", "gemini", 200, jsonCT,
			"text=…|calls=|finish=MAX_TOKENS|usage=…|complete=true|error="},
		{"gemini/cookbook_resp_promptFeedback_blockReason_SAFETY.json", "gemini", 200, nil,
			"text=|calls=|finish=SAFETY|usage=-|complete=true|error="},
		{"gemini/sse_text_STOP__firebase_googleai.sse", "gemini", 200, sse,
			"text=…|calls=|finish=STOP|usage=…|complete=true|error="},
		{"gemini/sse_functionCall_thoughtSignature__firebase_googleai.sse", "gemini", 200, sse,
			"text=|calls=now|finish=STOP|usage=…|complete=true|error="},
		{"gemini/sse_promptFeedback_blockReason_SAFETY__firebase_googleai.sse", "gemini", 200, sse,
			"text=|calls=|finish=SAFETY|usage=-|complete=true|error="},
		{"gemini/error_400_INVALID_ARGUMENT_api_key__firebase_googleai.json", "gemini", 400, jsonCT,
			"text=|calls=|finish=|usage=-|complete=true|error=400 INVALID_ARGUMENT"},
		{"gemini/error_429_RESOURCE_EXHAUSTED_quota_retryinfo__gemini_cli_test_DECODED.json", "gemini", 429, jsonCT,
			"text=|calls=|finish=|usage=-|complete=true|error=429 RESOURCE_EXHAUSTED"},
		{"ollama/chat_tools_nonstream_response.json", "ollama", 200, jsonCT,
			"text=|calls=get_weather|finish=stop|usage=…|complete=true|error="},
		{"ollama/chat_stream_toolcall_with_id__cloud_test_fixture.ndjson", "ollama", 200, ndjson,
			"text=|calls=web_search|finish=|usage=12/4+0|complete=true|error="},
		{"ollama/generate_stream.ndjson", "ollama", 200, ndjson,
			"text=…|calls=|finish=stop|usage=-|complete=true|error="},
		{"ollama/error_midstream.ndjson", "ollama", 200, ndjson,
			"text= Yes.Ican|calls=|finish=|usage=-|complete=true|error=200 "},
		{"ollama/error_generic.json", "ollama", 400, jsonCT,
			"text=|calls=|finish=|usage=-|complete=true|error=400 "},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c, ok := backend.Wire().Family(tc.family)
			if !ok {
				t.Fatal("no codec for", tc.family)
			}
			body := read(t, "examples/"+tc.file)
			r := c.DecodeResponse(nil, providers.Exchange{Status: tc.status, ResponseHeaders: tc.header, ResponseBody: body})
			got := summary(r, strings.Contains(tc.want, "…"))
			if got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			if r.Problem != "" {
				t.Errorf("problem: %s", r.Problem)
			}
		})
	}
}

// summary prints what a test checks of a response; loose puts … for long
// text and usage whose exact figures the file's own row does not check.
func summary(r *wire.Response, loose bool) string {
	var calls []string
	for _, c := range r.ToolCalls {
		calls = append(calls, c.Name)
	}
	text := r.Text
	usage := "-"
	if r.Usage != nil {
		usage = strings.Join([]string{itoa(r.Usage.Input), "/", itoa(r.Usage.Output), "+", itoa(r.Usage.Cached)}, "")
	}
	if loose {
		if text != "" {
			text = "…"
		}
		if usage != "-" {
			usage = "…"
		}
	}
	errText := ""
	if r.Error != nil {
		errText = itoa(r.Error.Status) + " " + r.Error.Code
	}
	return "text=" + text + "|calls=" + strings.Join(calls, ",") + "|finish=" + r.FinishReason + "|usage=" + usage +
		"|complete=" + map[bool]string{true: "true", false: "false"}[r.Complete] + "|error=" + errText
}

func itoa(n int) string { return strconv.Itoa(n) }
