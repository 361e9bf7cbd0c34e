package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExportCommand drives `glassbox export` through realMain on a session
// the test makes by running the write-file lesson headless.
func TestExportCommand(t *testing.T) {
	isolate(t)
	code, _, stderr := runIn(t, "y\n", "run", "--offline", "--lesson", "write-file")
	if code != exitOK {
		t.Fatalf("lesson: exit %d: %s", code, stderr)
	}
	path, id := savedSession(t, stderr)

	if _, out, _ := runIn(t, "", "help"); !strings.Contains(out, "glassbox export SESSION [--step N] [--format md|html|har] [--out FILE]") || !strings.Contains(out, "glassbox sessions [--stats [ID]]") {
		t.Fatalf("help does not list export and --stats:\n%s", out)
	}
	t.Run("by id, whole, markdown on stdout", func(t *testing.T) {
		code, out, stderr := runIn(t, "", "export", id)
		if code != exitOK || !strings.HasPrefix(out, "# glassbox handout: a whole session, 10 steps\n") || strings.Count(out, "### Step ") != 10 {
			t.Fatalf("exit %d, stderr %s, page:\n%s", code, stderr, out)
		}
	})
	t.Run("HAR of the whole session, with glassbox's version as its creator", func(t *testing.T) {
		code, out, stderr := runIn(t, "", "export", id, "--format", "har")
		if code != exitOK || !strings.HasPrefix(out, `{"log":{"version":"1.2","creator":{"name":"glassbox","version":"`+version+`"}`) || !strings.Contains(out, `"_glassbox":{"kind":"model"`) {
			t.Fatalf("exit %d, stderr %s, file:\n%.400s", code, stderr, out)
		}
	})
	t.Run("by file, one step, html to --out, flags before SESSION", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "step.html")
		code, stdout, stderr := runIn(t, "", "export", "--step", "6", "--format", "html", "--out", out, path)
		if code != exitOK || stdout != "" {
			t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
		}
		if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("the page's permissions: %v %v (want 0600: it holds the whole conversation)", st.Mode(), err)
		}
		data, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(data), `content="default-src 'none'; style-src 'unsafe-inline'"`) {
			t.Fatalf("no Content-Security-Policy: %v", err)
		}
		if !strings.HasPrefix(string(data), "<!DOCTYPE html>") || !strings.Contains(string(data), "step 6 of 10") || !strings.Contains(string(data), "EXECUTING_TOOL ─tool_success→ RECORDING_RESULT") {
			t.Fatalf("%v:\n%s", err, data)
		}
	})
	t.Run("a key in the environment is masked on the page", func(t *testing.T) {
		// The offline exchanges carry no key; the user's own request does.
		t.Setenv("GEMINI_API_KEY", "farewell(name)") // a "key" the page is full of
		code, out, stderr := runIn(t, "", "export", id, "--step", "1")
		if code != exitOK || strings.Contains(out, "farewell(name)") || !strings.Contains(out, "Create a file farewell.py with a [REDACTED] function") {
			t.Fatalf("exit %d, %s:\n%s", code, stderr, out)
		}
	})

	t.Run("a comparison shows both runs", func(t *testing.T) {
		_, _, stderr := runIn(t, "", "run", "--offline", "--compare", "--lesson", "tour")
		cmp, _ := savedSession(t, stderr)
		code, out, stderr := runIn(t, "", "export", cmp)
		if code != exitOK || !strings.Contains(out, "## Run `gemini`") || !strings.Contains(out, "## Run `llama`") {
			t.Fatalf("exit %d, %s:\n%s", code, stderr, out)
		}
	})

	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "handout.md")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no session", []string{"export"}, "Usage: glassbox export SESSION"},
		{"unknown id", []string{"export", "nope"}, "export nope: no session with that id"},
		{"missing file", []string{"export", "/no/such/file.jsonl"}, "no such file"},
		{"step past the end", []string{"export", id, "--step", "11"}, "no such step: step 11"},
		{"step zero", []string{"export", id, "--step", "0"}, "--step 0: steps count from 1"},
		{"unknown format", []string{"export", id, "--format", "pdf"}, `--format "pdf": want md, html or har`},
		{"two sessions", []string{"export", id, id}, "one session at a time"},
		{"--out is the session", []string{"export", id, "--out", path}, "is the session's own file"},
		{"--out is a link to the session", []string{"export", id, "--out", link}, "is the session's own file"},
		{"--out is the session's exchanges", []string{"export", id, "--out", strings.TrimSuffix(path, ".jsonl") + ".files/exchanges.jsonl"}, "is the session's own file"},
		{"a file that is not a session", []string{"export", filepath.Join(t.TempDir(), "x.jsonl")}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runIn(t, "", tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || out != "" {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, exitUsage, out, stderr, tc.want)
			}
		})
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the session file changed")
	}
	forged := filepath.Join(t.TempDir(), "forged.jsonl")
	os.WriteFile(forged, []byte(`{"kind":"header","format":1,"runs":[{"provider":"gemini"}]}`+"\n"+`{"kind":"step","seq":1,"trace":{"seq":1,"from":"WAITING_FOR_EVENT","to":"HALTED","edge":"new_event"},"checkpoint":{"seq":1}}`+"\n"), 0o600)
	if code, _, stderr := runIn(t, "", "export", forged); code != exitUsage || !strings.Contains(stderr, "not a transition of the state machine") {
		t.Fatalf("forged: exit %d, %s", code, stderr)
	}
}

// TestSessionsStats drives `glassbox sessions --stats` through realMain on
// sessions made in the test: a clean run, one with a retry, one whose
// denial was fed back to the model.
func TestSessionsStats(t *testing.T) {
	isolate(t)
	ids := map[string]string{}
	for _, lesson := range []string{"write-file", "rate-limit", "path-escape"} {
		_, _, stderr := runIn(t, "y\n", "run", "--offline", "--lesson", lesson)
		_, ids[lesson] = savedSession(t, stderr)
	}
	dir := filepath.Join(os.Getenv("XDG_STATE_HOME"), "glassbox", "sessions")
	os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte("not a session\n"), 0o600)

	code, out, stderr := runIn(t, "", "sessions", "--stats")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || lines[0] != "id\tstarted\tprovider(s)\tsteps\thealth" {
		t.Fatalf("want a header and 4 lines:\n%s", out)
	}
	health := map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 5 {
			t.Fatalf("line %q has %d columns", l, len(f))
		}
		health[f[0]] = f[4]
	}
	size := `· \d+ KB$`
	for lesson, want := range map[string]string{
		"write-file":  `^2 calls · 0 retries · 0 failures fed back · p50 \d+ ms · max \d+ ms · tokens \d+→\d+ ` + size,
		"rate-limit":  `^1 call · 1 retry · 0 failures fed back · p50 [\d.]+ m?s · max [\d.]+ m?s · tokens \d+→\d+ ` + size,
		"path-escape": `^2 calls · 0 retries · 2 failures fed back · `,
	} {
		if !regexp.MustCompile(want).MatchString(health[ids[lesson]]) {
			t.Errorf("%s: health %q, want %s", lesson, health[ids[lesson]], want)
		}
	}
	if !strings.Contains(health["broken"], "unreadable") {
		t.Errorf("broken: %q", health["broken"])
	}

	code, out, stderr = runIn(t, "", "sessions", "--stats", ids["path-escape"])
	if code != exitOK || !regexp.MustCompile(`(?m)^fed back +2 \(policy_denied 2\)$`).MatchString(out) || !regexp.MustCompile(`(?m)^size on disk +\d+ bytes`).MatchString(out) {
		t.Fatalf("exit %d, %s:\n%s", code, stderr, out)
	}
	// The size is the file, its exchanges and its file copies — not the kept workspace.
	path := filepath.Join(dir, ids["path-escape"]+".jsonl")
	var want int64
	for _, root := range []string{path, filepath.Join(dir, ids["path-escape"]+".files", "exchanges.jsonl"), filepath.Join(dir, ids["path-escape"]+".files", "blobs")} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				info, _ := d.Info()
				want += info.Size()
			}
			return nil
		})
	}
	if !strings.Contains(out, fmt.Sprintf("size on disk      %d bytes", want)) {
		t.Errorf("want size %d:\n%s", want, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "--stats", "nope"}, "--stats nope: no session with that id"},
		{[]string{"sessions", "--stats", "broken"}, "does not start with a glassbox session header"},
		{[]string{"sessions", "extra"}, "takes no arguments but --stats [ID]"},
		{[]string{"sessions", "--stats", "a", "b"}, "takes no arguments but --stats [ID]"},
	} {
		if code, _, stderr := runIn(t, "", tc.args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q (want %q)", tc.args, code, stderr, tc.want)
		}
	}
}

// A forked session exports its present line: the steps the fork cut are
// gone from the page, the ones taken after it are there.
func TestExportAForkedSession(t *testing.T) {
	isolate(t)
	file := filepath.Join(t.TempDir(), "w.jsonl")
	if code, _, stderr := runIn(t, "y\n", "run", "--offline", "--lesson", "write-file", "--session", file); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runIn(t, "n\n", "run", "--resume", file, "--from", "4"); code != exitOK {
		t.Fatalf("fork: exit %d: %s", code, stderr)
	}
	code, out, stderr := runIn(t, "", "export", file)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "| 5 | `AWAITING_USER_CONFIRMATION` | `user_denial` | `RECORDING_ERROR` |") || strings.Contains(out, "`user_approval`") || strings.Contains(out, "← result of write_file: wrote") {
		t.Fatalf("the page is not the present line after the fork:\n%s", out)
	}
	if code, out, stderr := runIn(t, "", "sessions", "--stats", file); code != exitOK || !regexp.MustCompile(`(?m)^fed back +1 \(user_denied 1\)$`).MatchString(out) {
		t.Fatalf("stats after the fork: exit %d, %s:\n%s", code, stderr, out)
	}
}
