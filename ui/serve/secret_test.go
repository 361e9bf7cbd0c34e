package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

const serverKey = "AIzaSyTESTKEY-glassbox-serve-0123456789"

// withoutNative is a session file without the messages' native encodings:
// the engine keeps a reply's native encoding unmasked on purpose, to
// replay it to the provider byte for byte (loop/contextedit.go,
// maskMessage). Only a provider that echoes the key into its reply puts it
// there; everything else in the file is checked.
func withoutNative(t *testing.T, b []byte) []byte {
	var out []byte
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("session line %q: %v", line, err)
		}
		dropNative(v)
		l, _ := json.Marshal(v)
		out = append(append(out, l...), '\n')
	}
	return out
}

func dropNative(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "native")
		for _, x := range v {
			dropNative(x)
		}
	case []any:
		for _, x := range v {
			dropNative(x)
		}
	}
}

// A room served live through the instructor's key: the learner's run is
// live, and the key reaches neither the learner's screen (History, the raw
// payload with its request headers) nor their session files — even when
// the model's reply repeats it.
func TestServerKeyNeverReachesALearner(t *testing.T) {
	gemini := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", r.Header.Get("x-goog-api-key"))
		fmt.Fprintf(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"the key you sent is %s"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":3,"totalTokenCount":6}}`, r.Header.Get("x-goog-api-key"))
	}))
	defer gemini.Close()
	env := map[string]string{"GEMINI_API_KEY": serverKey, "GOOGLE_GEMINI_BASE_URL": gemini.URL}
	run := agentrun.Defaults(false)
	run.Live, run.SimLatency = true, 0
	run.Env = backend.EnvFrom(func(k string) string { return env[k] })
	r := newRoom(t, Options{Run: run})

	a := r.learn("ada")
	a.waitFor("LIVE")
	a.keys("\r")
	a.waitFor("press space to take it")
	a.keys("c")
	a.waitFor("the key you sent is")
	a.keys("\x1b") // the stepper's keys: the raw payload pane shows the exchange
	a.keys("x")
	a.waitFor("WAITING_FOR_EVENT")
	if strings.Contains(a.text(), serverKey) {
		t.Fatalf("the key reached the learner's screen:\n%s", tail(a.text(), 4000))
	}
	filepath.WalkDir(r.learnerDir("user", "ada"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		if filepath.Base(path) == "session.jsonl" {
			b = withoutNative(t, b)
		}
		if strings.Contains(string(b), serverKey) {
			t.Errorf("the key is in the learner's %s", path)
		}
		return nil
	})
}
