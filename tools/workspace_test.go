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

// TestUnusablePaths: a path no file can have is refused with what is wrong
// with it, by every file tool, and does not count as outside the workspace
// (which would send the policy's path-outside-workspace rule a false
// alarm).
func TestUnusablePaths(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"hello.py": "print()\n"})
	long := strings.Repeat("a", 300)
	tests := []struct {
		name, path, want string
	}{
		{name: "NUL", path: "hello.py\x00.txt", want: `path "hello.py\x00.txt" is not usable: it contains a NUL character (\x00), which no file or folder name can hold`},
		{name: "300-byte name", path: long, want: `the name "` + long[:40] + `"… is 300 bytes long; a file or folder name may be at most 255 bytes`},
		{name: "300-byte folder name", path: "notes/" + long + "/x.txt", want: "is 300 bytes long; a file or folder name may be at most 255 bytes"},
		{name: "5,000-byte path", path: strings.Repeat("abc/", 1250), want: "it is 5000 bytes long; a path may be at most 4095 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ws.Resolve(tt.path)
			if !errors.Is(err, ErrInvalidPath) || errors.Is(err, ErrOutsideWorkspace) {
				t.Fatalf("Resolve error = %v, want ErrInvalidPath (and not ErrOutsideWorkspace)", err)
			}
			if !ws.Inside(tt.path) {
				t.Error("Inside = false: an unusable path would be denied as outside the workspace")
			}
			for _, tool := range []Tool{NewReadFile(ws), NewWriteFile(ws), NewListFiles(ws)} {
				args := `{"path":` + quote(tt.path) + `,"content":"x"}`
				if tool.Spec().Name != WriteFileName {
					args = `{"path":` + quote(tt.path) + `}`
				}
				res := run(t, tool, args)
				if !res.IsError || !strings.Contains(res.Content, tt.want) || strings.Contains(res.Content, "outside") {
					t.Errorf("%s = %q, want an error saying %q", tool.Spec().Name, res.Content, tt.want)
				}
				if len(res.Content) > 300 {
					t.Errorf("%s's message is %d bytes long; a long path must be shortened", tool.Spec().Name, len(res.Content))
				}
			}
		})
	}
}

// TestBidiControlsAreEscaped: the file tools show Unicode bidirectional
// controls as escapes wherever they produce text (names in listings and
// messages, file contents, the write preview), so what a person reads is
// what is there.
func TestBidiControlsAreEscaped(t *testing.T) {
	// "invoice\u202etxt.exe" shows on screen as "invoiceexe.txt".
	name := "invoice\u202etxt.exe"
	ws := newTestWorkspace(t, map[string]string{
		name:        "x",
		"trojan.py": "access = \"user\u202e \u2066# admin\u2069 \u2066\"\n",
	})
	checks := []struct {
		tool Tool
		args string
		want string
	}{
		{NewListFiles(ws), `{}`, `invoice\u202etxt.exe`},
		{NewReadFile(ws), `{"path":` + quote(name) + `}`, "x"},
		{NewReadFile(ws), `{"path":"trojan.py"}`, `access = "user\u202e \u2066# admin\u2069 \u2066"`},
		{NewReadFile(ws), `{"path":` + quote(name+"/x") + `}`, `cannot read invoice\u202etxt.exe/x: not a directory`},
		{NewWriteFile(ws), `{"path":` + quote(name) + `,"content":"y"}`, `wrote 1 bytes to invoice\u202etxt.exe`},
	}
	for _, c := range checks {
		res := run(t, c.tool, c.args)
		if !strings.Contains(res.Content, c.want) {
			t.Errorf("%s(%s) = %q, want it to contain %q", c.tool.Spec().Name, c.args, res.Content, c.want)
		}
		if strings.ContainsFunc(res.Content, IsBidiControl) {
			t.Errorf("%s(%s) = %q holds a raw bidi control", c.tool.Spec().Name, c.args, res.Content)
		}
	}
	preview := NewWriteFile(ws).Preview([]byte(`{"path":"trojan.py","content":"access = \"user\u202e\"\n"}`))
	if strings.ContainsFunc(preview, IsBidiControl) || !strings.Contains(preview, `+access = "user\u202e"`) {
		t.Errorf("Preview = %q, want the bidi controls escaped", preview)
	}
}

func TestEscapeBidi(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a\u202eb", `a\u202eb`},
		{"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069`},
		{"日本語 \u200f", "日本語 \u200f"}, // other marks stay
		{"bad \xff byte \u2067", "bad \xff byte \\u2067"},
	}
	for _, tt := range tests {
		if got := EscapeBidi(tt.in); got != tt.want {
			t.Errorf("EscapeBidi(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
