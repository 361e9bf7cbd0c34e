package tools

import (
	"path/filepath"
	"slices"
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
			if got := ServerReads(tc.argv, ws); !slices.Equal(got, tc.want) {
				t.Errorf("ServerReads(%q) = %q, want %q", tc.argv, got, tc.want)
			}
		})
	}
}
