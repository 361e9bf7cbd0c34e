package backend

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// playTour makes calls model calls of the tour lesson with b's provider,
// the loop's way: each reply and its tools' results go back in.
func playTour(t *testing.T, b *Backend, calls int) {
	t.Helper()
	tour, _ := lessons.ByName("tour")
	msgs := []history.Message{{Role: history.RoleUser, Text: tour.Request}}
	tools := []history.ToolSpec{
		{Name: "list_files", Description: "Lists files.", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Required: true}}},
		{Name: "read_file", Description: "Reads a file.", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Required: true}}},
	}
	for i := range calls {
		resp, err := b.Provider.Call(context.Background(), providers.Request{System: "s", Messages: msgs, Tools: tools})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		msgs = append(msgs, resp.Message)
		for _, c := range resp.Message.ToolCalls {
			msgs = append(msgs, history.Message{Role: history.RoleTool, Result: &history.ToolResult{CallID: c.ID, Name: c.Name, Content: "hello.py\nREADME.md"}})
		}
	}
}

// recordTour records the tour's first calls offline in mode unary or not.
func recordTour(t *testing.T, d Dialect, unary bool, calls int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tour.cassette")
	b, err := Choose(context.Background(), Options{Dialect: d, Offline: true, Record: path, Env: offlineEnv(),
		Call: providers.CallOptions{Unary: unary}})
	if err != nil {
		t.Fatal(err)
	}
	playTour(t, b, calls)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// replayTour replays path with the default call options (streamed).
func replayTour(t *testing.T, d Dialect, path string, calls int) *Backend {
	t.Helper()
	b, err := Choose(context.Background(), Options{Dialect: d, Replay: path, Env: offlineEnv()})
	if err != nil {
		t.Fatal(err)
	}
	playTour(t, b, calls)
	if div := b.Replay.Divergences(); len(div) > 0 {
		t.Fatalf("the replay diverged: %q", div)
	}
	return b
}

// Issue 29: a cassette recorded with unary calls (--stream=false) replays
// in that mode whatever the replaying run's --stream says, in every
// dialect; the header says the mode, and the backend's reason too.
func TestACassetteReplaysInTheModeItWasRecordedIn(t *testing.T) {
	for _, d := range Dialects() {
		for _, unary := range []bool{true, false} {
			t.Run(d.Name+"/"+providers.ModeOf(providers.CallOptions{Unary: unary}), func(t *testing.T) {
				path := recordTour(t, d, unary, 2)
				cas, err := providers.LoadCassette(path)
				if err != nil {
					t.Fatal(err)
				}
				if want := providers.ModeOf(providers.CallOptions{Unary: unary}); cas.Header.Mode != want || cas.Mode() != want {
					t.Fatalf("header mode %q, read %q; want %q", cas.Header.Mode, cas.Mode(), want)
				}
				b := replayTour(t, d, path, 2)
				if strings.Contains(b.Reason, "unary") != unary {
					t.Errorf("reason %q", b.Reason)
				}
			})
		}
	}
}

// A cassette written before glassbox recorded the mode (testdata: the
// tour's first two Gemini calls, recorded with --stream=false) has its
// mode read from its exchanges, and replays.
func TestAnOldUnaryCassetteReplays(t *testing.T) {
	const path = "testdata/gemini-unary-before-mode.cassette"
	if os.Getenv("GLASSBOX_WRITE_TESTDATA") != "" { // how the file was made
		rec := recordTour(t, mustLookup(t, "gemini"), true, 2)
		raw, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		old := strings.Replace(string(raw), `,"mode":"unary"`, "", 1)
		if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cas, err := providers.LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}
	if cas.Header.Mode != "" || cas.Mode() != providers.ModeUnary {
		t.Fatalf("header mode %q, read %q: want none written and unary read", cas.Header.Mode, cas.Mode())
	}
	replayTour(t, mustLookup(t, "gemini"), path, 2)
}

func mustLookup(t *testing.T, name string) Dialect {
	t.Helper()
	d, ok := Lookup(name)
	if !ok {
		t.Fatalf("no dialect %q", name)
	}
	return d
}
