package loop

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/tools"
)

// FuzzResumeSessionFile feeds the session reader and Resume hostile files:
// real sessions (testdata/sessions: a command allowed for the session, a
// question answered, a comparison, parallel calls, a denial), cut at every
// line and mutated by the fuzzer. Whatever the bytes, reading and resuming
// end in an error that says what is wrong, or in an engine that steps and
// forks without a panic — and no command runs: a file's approvals are not
// the person's (the person here denies everything). `go test` runs the
// seeds; `go test -fuzz FuzzResumeSessionFile ./loop` searches further.
func FuzzResumeSessionFile(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "sessions", "*.jsonl"))
	if len(seeds) == 0 {
		f.Fatal("no seed sessions in testdata/sessions")
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		lines := bytes.SplitAfter(data, []byte("\n"))
		for n := 1; n < len(lines); n++ {
			f.Add(bytes.Join(lines[:n], nil))
		}
	}
	f.Add([]byte(`{"kind":"header","format":1,"runs":[{"provider":"gemini"}]}` + "\n" + `{"kind":"step","seq":1,"checkpoint":{"seq":1,"state":"EXECUTING_TOOL","current":3}}` + "\n"))
	f.Add([]byte(`{"kind":"header","format":1,"runs":[{}]}` + "\n" + `{"kind":"answer","seq":1,"approval":99}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		watchdog := time.AfterFunc(20*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic("a hostile session file held glassbox for 20 s:\n" + string(buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		file, err := session.Read(path)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		for i, rl := range file.Runs {
			wsDir := filepath.Join(dir, "ws", string(rune('a'+i%26)))
			if err := os.MkdirAll(wsDir, 0o755); err != nil {
				t.Fatal(err)
			}
			ws, err := tools.NewWorkspace(wsDir)
			if err != nil {
				t.Fatal(err)
			}
			person := &scriptedPerson{} // denies every confirmation
			cfg := Config{Provider: &scriptedProvider{replies: []reply{text("ok")}}, Tools: tools.Default(ws, person, 0),
				Workspace: ws, Person: person, Backend: "offline",
				Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }}
			e, _, err := Resume(cfg, rl, nil)
			if err != nil {
				if !errors.Is(err, session.ErrCorrupt) && err.Error() == "" {
					t.Fatal("an error without a message")
				}
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			for range 30 {
				if _, err := e.Step(ctx); err != nil {
					break
				}
			}
			cancel()
			for s := e.Seq(); s >= 0; s-- {
				_ = e.Fork(s)
			}
			if len(person.asked) > 0 {
				for _, a := range person.asked {
					if a.Call.Name == "" {
						t.Fatalf("asked about a call without a name: %+v", a)
					}
				}
			}
		}
	})
}
