package tools

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestServerReads: what a stdio server may read beyond a command's folders
// is exactly its command line's files and folders and each file's folder —
// never /, the home folder or the temporary folder by way of a file lying
// directly in them; words that name nothing, and paths already readable,
// add nothing; a link in the workspace (the agent may have planted it)
// opens nothing outside, one outside counts where it leads.
func TestServerReads(t *testing.T) {
	base := resolved(t.TempDir())
	home, tmp := filepath.Join(base, "home"), filepath.Join(base, "tmp")
	ws, proj := filepath.Join(base, "ws"), filepath.Join(base, "proj")
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", tmp)
	for _, f := range []string{filepath.Join(proj, "server.py"), filepath.Join(proj, "data", "notes.md"), filepath.Join(home, "server.py"),
		filepath.Join(tmp, "server.py"), filepath.Join(ws, "notes.txt")} {
		writeTestFile(t, f, "x")
	}
	symlink(t, filepath.Join(proj, "server.py"), filepath.Join(ws, "link.py"))
	symlink(t, filepath.Join(proj, "server.py"), filepath.Join(base, "outside-link.py"))
	for _, tc := range []struct {
		name string
		argv []string
		want []string
	}{
		{"a script and a folder it is given", []string{"python3", filepath.Join(proj, "server.py"), "--root", filepath.Join(proj, "data"), "-v"},
			[]string{filepath.Join(proj, "server.py"), proj, filepath.Join(proj, "data")}},
		{"a script in the home folder: the file alone", []string{"python3", filepath.Join(home, "server.py")}, []string{filepath.Join(home, "server.py")}},
		{"a script in the temporary folder: the file alone", []string{"python3", filepath.Join(tmp, "server.py")}, []string{filepath.Join(tmp, "server.py")}},
		{"relative words from the workspace", []string{"python3", "../proj/server.py", "notes.txt"}, []string{filepath.Join(proj, "server.py"), proj}},
		{"a link in the workspace opens nothing", []string{"python3", "link.py", filepath.Join(ws, "link.py")}, nil},
		{"a link outside, where it leads", []string{"python3", filepath.Join(base, "outside-link.py")}, []string{filepath.Join(proj, "server.py"), proj}},
		{"system programs and missing paths add nothing", []string{"/usr/bin/env", "python3", "/nonexistent/server.py", "notes.txt"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := ServerReads(tc.argv, ws); err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ServerReads(%q) = %q, %v; want %q", tc.argv, got, err, tc.want)
			}
		})
	}
}

// Issue 28: a server's command line may not open what no program of the
// agent's may read. A word naming /, the home folder, the temporary
// folder, a folder above one of them, glassbox's state folder (sessions,
// the approvals key) or anything in it is refused, with the word named;
// before, each was added to what the server may read.
func TestServerReadsRefusesBroadWords(t *testing.T) {
	base := resolved(t.TempDir())
	home, tmp, state := filepath.Join(base, "home"), filepath.Join(base, "tmp"), filepath.Join(base, "state")
	ws := filepath.Join(base, "ws")
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_STATE_HOME", state)
	key := filepath.Join(state, "glassbox", "approvals.key")
	for _, f := range []string{key, filepath.Join(home, "project", "server.py"), filepath.Join(tmp, "x"), filepath.Join(ws, "a")} {
		writeTestFile(t, f, "x")
	}
	for _, tc := range []struct{ word, says string }{
		{"/", "which is or holds /, your home folder or the temporary folder"},
		{home, "which is or holds /, your home folder or the temporary folder"},
		{base, "which is or holds /, your home folder or the temporary folder"},
		{tmp, "which is or holds /, your home folder or the temporary folder"},
		{filepath.Join(state, "glassbox"), "glassbox's state folder"},
		{state, "glassbox's state folder"},
		{key, "glassbox's state folder"},
	} {
		if got, err := ServerReads([]string{"python3", filepath.Join(home, "project", "server.py"), tc.word}, ws); err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), tc.word) {
			t.Errorf("%s: %q, %v", tc.word, got, err)
		}
	}
	if got, err := ServerReads([]string{"python3", filepath.Join(home, "project", "server.py"), filepath.Join(home, "project")}, ws); err != nil || len(got) != 2 {
		t.Errorf("a folder inside the home folder: %q, %v", got, err)
	}
}
