package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// openStep is what the round trips compare of a step.
type openStep struct {
	Edge     string `json:"edge"`
	Inferred string `json:"inferred"`
	Tool     *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"tool"`
	Result *struct {
		Content string `json:"content"`
		IsError bool   `json:"is_error"`
	} `json:"result"`
	LLM *struct {
		Text  string `json:"text"`
		Usage struct {
			In  int `json:"input_tokens"`
			Out int `json:"output_tokens"`
		} `json:"usage"`
	} `json:"llm"`
	Output *struct {
		Text string `json:"text"`
	} `json:"output"`
}

func openSteps(t *testing.T, jsonl string) []openStep {
	t.Helper()
	var out []openStep
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var s openStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if s.Edge != "" {
			out = append(out, s)
		}
	}
	return out
}

// sameLoop checks that an opened file shows the steps of the run it came
// from: the same edges (those glassbox infers of a foreign agent marked),
// tools, arguments, results, answers and tokens.
func sameLoop(t *testing.T, run, opened []openStep) {
	t.Helper()
	edges := func(ss []openStep, marks bool) string {
		var e []string
		for _, s := range ss {
			if marks && s.Inferred != "" {
				s.Edge += "*"
			}
			e = append(e, s.Edge)
		}
		return strings.Join(e, " ")
	}
	if edges(run, false) != edges(opened, false) {
		t.Fatalf("edges\nrun    %s\nopened %s", edges(run, false), edges(opened, true))
	}
	for i, r := range run {
		o := opened[i]
		if (r.Tool == nil) != (o.Tool == nil) || r.Tool != nil && (r.Tool.Name != o.Tool.Name || !jsonEqual(r.Tool.Args, o.Tool.Args)) {
			t.Errorf("step %d (%s): tool %+v, run's %+v", i+1, r.Edge, o.Tool, r.Tool)
		}
		if (r.Result == nil) != (o.Result == nil) || r.Result != nil && *r.Result != *o.Result {
			t.Errorf("step %d (%s): result %+v, run's %+v", i+1, r.Edge, o.Result, r.Result)
		}
		if (r.LLM == nil) != (o.LLM == nil) || r.LLM != nil && (r.LLM.Text != o.LLM.Text || r.LLM.Usage != o.LLM.Usage) {
			t.Errorf("step %d (%s): llm %+v, run's %+v", i+1, r.Edge, o.LLM, r.LLM)
		}
		if (r.Output == nil) != (o.Output == nil) || r.Output != nil && r.Output.Text != o.Output.Text {
			t.Errorf("step %d (%s): output %+v, run's %+v", i+1, r.Edge, o.Output, r.Output)
		}
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflectJSON(x) == reflectJSON(y)
}

func reflectJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// glassboxOut runs glassbox with args and returns its standard output.
func glassboxOut(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := realMain(context.Background(), args, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("glassbox %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// A run's HTTP exchanges exported as HAR and opened again show the run's
// own steps: `glassbox export SESSION --format har`, then `glassbox open`.
func TestOpenHARRoundTrip(t *testing.T) {
	for _, lesson := range []string{"tour", "tool-failure"} {
		t.Run(lesson, func(t *testing.T) {
			isolate(t)
			run := glassboxOut(t, "run", "--offline", "--lesson", lesson, "--json", "--yes")
			sessions, err := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "glassbox", "sessions", "*.jsonl"))
			if err != nil || len(sessions) != 1 {
				t.Fatalf("sessions %v, %v", sessions, err)
			}
			har := filepath.Join(t.TempDir(), "run.har")
			glassboxOut(t, "export", sessions[0], "--format", "har", "--out", har)
			sameLoop(t, openSteps(t, run), openSteps(t, glassboxOut(t, "open", har, "--json")))
		})
	}
}

// A run's OpenTelemetry spans (--otlp-content), received over OTLP/HTTP
// and written as OTLP JSON lines, opened again show the run's own steps.
func TestOpenOTLPRoundTrip(t *testing.T) {
	for _, lesson := range []string{"tour", "parallel"} {
		t.Run(lesson, func(t *testing.T) {
			isolate(t)
			var mu sync.Mutex
			var file bytes.Buffer
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var req coltracepb.ExportTraceServiceRequest
				if err := proto.Unmarshal(body, &req); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				line, err := protojson.Marshal(&req) // ids in base64, as protobuf's own JSON mapping writes them
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				mu.Lock()
				file.Write(append(line, '\n'))
				mu.Unlock()
				resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
				w.Header().Set("Content-Type", "application/x-protobuf")
				w.Write(resp)
			}))
			defer srv.Close()
			run := glassboxOut(t, "run", "--offline", "--lesson", lesson, "--json", "--yes", "--otlp", srv.URL, "--otlp-content")
			path := filepath.Join(t.TempDir(), "spans.jsonl")
			mu.Lock()
			err := os.WriteFile(path, file.Bytes(), 0o644)
			mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			sameLoop(t, openSteps(t, run), openSteps(t, glassboxOut(t, "open", path, "--json")))
		})
	}
}
