package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewWorkspace(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	writeTestFile(t, file, "x")
	link := filepath.Join(dir, "link")
	symlink(t, dir, link)
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		root     string
		wantRoot string
		wantErr  string
	}{
		{name: "folder", root: dir, wantRoot: realDir},
		{name: "symlink to folder is resolved", root: link, wantRoot: realDir},
		{name: "missing folder", root: filepath.Join(dir, "nope"), wantErr: "no such file or directory"},
		{name: "file, not folder", root: file, wantErr: "is a file, not a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := NewWorkspace(tt.root)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewWorkspace(%q) error = %v, want one containing %q", tt.root, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewWorkspace(%q): %v", tt.root, err)
			}
			if ws.Root() != tt.wantRoot {
				t.Errorf("Root() = %q, want %q", ws.Root(), tt.wantRoot)
			}
		})
	}
}

func TestNewWorkspaceRelativeRoot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ws, err := NewWorkspace(".")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(ws.Root()) {
		t.Errorf("Root() = %q, want an absolute path", ws.Root())
	}
}

func TestResolve(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"hello.py": "print()\n", "notes/todo.txt": "- x\n"})
	root := ws.Root()
	outside := outsideDir(t, ws)

	symlink(t, outside, filepath.Join(root, "outdir"))
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "outfile"))
	symlink(t, filepath.Join(outside, "not-yet.txt"), filepath.Join(root, "dangling"))
	symlink(t, filepath.Join(root, "hello.py"), filepath.Join(root, "inlink"))
	symlink(t, "notes", filepath.Join(root, "notes-link"))

	tests := []struct {
		name    string
		path    string
		want    string // when inside
		outside bool
	}{
		{name: "relative file", path: "hello.py", want: filepath.Join(root, "hello.py")},
		{name: "empty path is the root", path: "", want: root},
		{name: "dot is the root", path: ".", want: root},
		{name: "dot-dot that stays inside", path: "notes/../hello.py", want: filepath.Join(root, "hello.py")},
		{name: "dot-dot out of the root", path: "../outside/secret.txt", outside: true},
		{name: "dot-dot alone", path: "..", outside: true},
		{name: "absolute inside", path: filepath.Join(root, "notes", "todo.txt"), want: filepath.Join(root, "notes", "todo.txt")},
		{name: "absolute outside", path: "/etc/passwd", outside: true},
		{name: "absolute root of file system", path: "/", outside: true},
		{name: "new file in new folder", path: "new/dir/file.txt", want: filepath.Join(root, "new", "dir", "file.txt")},
		{name: "below a file stays inside (the tool reports the problem)", path: "hello.py/x", want: filepath.Join(root, "hello.py", "x")},
		{name: "symlink to folder outside", path: "outdir", outside: true},
		{name: "file under symlink to folder outside", path: "outdir/secret.txt", outside: true},
		{name: "new file under symlink to folder outside", path: "outdir/new.txt", outside: true},
		{name: "symlink to file outside", path: "outfile", outside: true},
		{name: "dangling symlink pointing outside", path: "dangling", outside: true},
		{name: "symlink inside to inside", path: "inlink", want: filepath.Join(root, "hello.py")},
		{name: "relative symlink inside", path: "notes-link/todo.txt", want: filepath.Join(root, "notes", "todo.txt")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ws.Resolve(tt.path)
			if tt.outside {
				if !errors.Is(err, ErrOutsideWorkspace) {
					t.Fatalf("Resolve(%q) = %q, %v; want an error wrapping ErrOutsideWorkspace", tt.path, got, err)
				}
				if ws.Inside(tt.path) {
					t.Errorf("Inside(%q) = true, want false", tt.path)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.path, err)
			}
			if got != tt.want {
				t.Errorf("Resolve(%q) = %q, want %q", tt.path, got, tt.want)
			}
			if !ws.Inside(tt.path) {
				t.Errorf("Inside(%q) = false, want true", tt.path)
			}
		})
	}
}

func TestResolveErrorMessage(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	_, err := ws.Resolve("../x")
	want := `path "../x" resolves to ` + filepath.Join(filepath.Dir(ws.Root()), "x") + ", outside the workspace " + ws.Root()
	if err == nil || err.Error() != want {
		t.Errorf("Resolve(../x) error = %v\nwant %s", err, want)
	}
}

func TestResolveSymlinkLoop(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	symlink(t, "b", filepath.Join(ws.Root(), "a"))
	symlink(t, "a", filepath.Join(ws.Root(), "b"))
	if _, err := ws.Resolve("a"); err == nil {
		t.Error("Resolve of a symlink loop succeeded, want an error")
	}
	if ws.Inside("a") {
		t.Error("Inside of a symlink loop = true, want false")
	}
}

func TestRel(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	tests := []struct {
		name string
		abs  string
		want string
	}{
		{name: "root", abs: ws.Root(), want: "."},
		{name: "nested file", abs: filepath.Join(ws.Root(), "notes", "todo.txt"), want: "notes/todo.txt"},
		{name: "outside stays absolute", abs: filepath.Dir(ws.Root()), want: filepath.Dir(ws.Root())},
		{name: "sibling with common prefix", abs: ws.Root() + "2", want: ws.Root() + "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ws.Rel(tt.abs); got != tt.want {
				t.Errorf("Rel(%q) = %q, want %q", tt.abs, got, tt.want)
			}
		})
	}
}

func TestWorkspaceSiblingPrefixIsOutside(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	sibling := ws.Root() + "-other"
	if err := os.Mkdir(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	if ws.Inside(sibling) {
		t.Errorf("Inside(%q) = true: a folder that merely starts with the root's name is not inside", sibling)
	}
}

// FuzzResolve checks that no path makes Resolve panic, and that whatever it
// accepts is really inside the root.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{"", ".", "..", "a/../../b", "/etc", "x\x00y", "notes//todo.txt", "./././"} {
		f.Add(seed)
	}
	ws, err := NewWorkspace(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, path string) {
		got, err := ws.Resolve(path)
		if err == nil && !strings.HasPrefix(got+string(filepath.Separator), ws.Root()+string(filepath.Separator)) {
			t.Errorf("Resolve(%q) = %q, which is not under %q", path, got, ws.Root())
		}
	})
}

// TestEscapesRoot pins the text of os.Root's refusal, which escapesRoot
// recognises (the standard library does not export the error).
func TestEscapesRoot(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	outside := outsideDir(t, ws)
	symlink(t, outside, filepath.Join(ws.Root(), "out"))
	_, err := ws.dir.Open("out/secret.txt")
	if !escapesRoot(err) {
		t.Fatalf("os.Root's error for a link out of the workspace is %v; escapesRoot does not recognise it", err)
	}
	if escapesRoot(os.ErrNotExist) {
		t.Error("escapesRoot(ErrNotExist) = true")
	}
	res := fileFailure("read", "out/secret.txt", err)
	if !strings.HasPrefix(res.Content, "refused: out/secret.txt now leads outside the workspace") {
		t.Errorf("fileFailure = %q", res.Content)
	}
}
