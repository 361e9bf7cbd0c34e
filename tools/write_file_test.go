package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name        string
		args        string
		wantContent string // of the file afterwards
		file        string // which file to check, relative to the root
		want        string // the result text
		wantIsError bool
	}{
		{name: "new file", args: `{"path":"new.txt","content":"hi\n"}`,
			file: "new.txt", wantContent: "hi\n", want: "wrote 3 bytes to new.txt (created a new file)"},
		{name: "new file in new sub-folders", args: `{"path":"a/b/c.txt","content":"deep"}`,
			file: "a/b/c.txt", wantContent: "deep", want: "wrote 4 bytes to a/b/c.txt (created a new file)"},
		{name: "overwrite", args: `{"path":"hello.py","content":"print('bye')\n"}`,
			file: "hello.py", wantContent: "print('bye')\n", want: "wrote 13 bytes to hello.py (overwrote the existing file)"},
		{name: "empty content", args: `{"path":"hello.py","content":""}`,
			file: "hello.py", wantContent: "", want: "wrote 0 bytes to hello.py (overwrote the existing file)"},
		{name: "empty path", args: `{"path":"","content":"x"}`, wantIsError: true,
			want: "write_file: the path is empty; name the file to write, e.g. notes/plan.txt"},
		{name: "folder", args: `{"path":"notes","content":"x"}`, wantIsError: true,
			want: "notes is a folder; write_file can only write files"},
		{name: "parent is a file", args: `{"path":"hello.py/x.txt","content":"x"}`, wantIsError: true,
			want: "cannot write hello.py/x.txt: not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newTestWorkspace(t, map[string]string{"hello.py": "print('hi')\n", "notes/todo.txt": "- a\n"})
			res := run(t, NewWriteFile(ws), tt.args)
			if res.Content != tt.want || res.IsError != tt.wantIsError {
				t.Errorf("Run = %+v, want {Content:%q IsError:%v}", res, tt.want, tt.wantIsError)
			}
			if tt.file != "" {
				if got := readTestFile(t, filepath.Join(ws.Root(), tt.file)); got != tt.wantContent {
					t.Errorf("%s = %q, want %q", tt.file, got, tt.wantContent)
				}
			}
		})
	}
}

func TestWriteFileRefusesOutside(t *testing.T) {
	tests := []struct {
		name   string
		path   func(ws *Workspace, outside string) string
		target string // the file outside that must stay untouched
	}{
		{name: "dot-dot", path: func(*Workspace, string) string { return "../outside/secret.txt" }, target: "secret.txt"},
		{name: "absolute path", path: func(_ *Workspace, outside string) string { return filepath.Join(outside, "new.txt") }, target: "new.txt"},
		{name: "symlinked folder", path: func(ws *Workspace, outside string) string {
			symlink(t, outside, filepath.Join(ws.Root(), "outdir"))
			return "outdir/new.txt"
		}, target: "new.txt"},
		{name: "symlink to a file", path: func(ws *Workspace, outside string) string {
			symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(ws.Root(), "link"))
			return "link"
		}, target: "secret.txt"},
		{name: "dangling symlink", path: func(ws *Workspace, outside string) string {
			symlink(t, filepath.Join(outside, "planted.txt"), filepath.Join(ws.Root(), "dangling"))
			return "dangling"
		}, target: "planted.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newTestWorkspace(t, nil)
			outside := outsideDir(t, ws)
			target := filepath.Join(outside, tt.target)
			before, _ := os.ReadFile(target)

			res := run(t, NewWriteFile(ws), `{"path":`+quote(tt.path(ws, outside))+`,"content":"pwned"}`)
			if !res.IsError || !strings.Contains(res.Content, "outside the workspace") {
				t.Errorf("Run = %+v, want an error result about the workspace", res)
			}
			after, _ := os.ReadFile(target)
			if string(after) != string(before) {
				t.Errorf("%s outside the workspace changed from %q to %q", tt.target, before, after)
			}
		})
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"run.sh": "echo hi\n", "private.txt": "x"})
	tests := []struct {
		name string
		file string
		mode os.FileMode
	}{
		{name: "executable script", file: "run.sh", mode: 0o755},
		{name: "private file", file: "private.txt", mode: 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(ws.Root(), tt.file)
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			run(t, NewWriteFile(ws), `{"path":`+quote(tt.file)+`,"content":"new"}`)
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Mode().Perm(); got != tt.mode {
				t.Errorf("mode after overwrite = %v, want %v", got, tt.mode)
			}
		})
	}
}

// TestWriteFileIsAtomic checks the two signs of write-then-rename: a reader
// that opened the old file still reads the old content in full (the new
// content went to a different file), and no temporary file is left behind.
func TestWriteFileIsAtomic(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"data.txt": "old content\n"})
	path := filepath.Join(ws.Root(), "data.txt")
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()

	res := run(t, NewWriteFile(ws), `{"path":"data.txt","content":"new content, longer than before\n"}`)
	if res.IsError {
		t.Fatalf("Run: %s", res.Content)
	}
	old, err := io.ReadAll(reader)
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != "old content\n" {
		t.Errorf("a reader of the old file saw %q: the file was changed in place, not replaced", old)
	}
	if got := readTestFile(t, path); got != "new content, longer than before\n" {
		t.Errorf("data.txt = %q after writing", got)
	}
	entries, err := os.ReadDir(ws.Root())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only data.txt (a temporary file was left behind)", names)
	}
}

func TestWriteFileThroughSymlinkInside(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"real.txt": "old"})
	symlink(t, "real.txt", filepath.Join(ws.Root(), "alias.txt"))
	res := run(t, NewWriteFile(ws), `{"path":"alias.txt","content":"new"}`)
	if res.IsError {
		t.Fatalf("Run: %s", res.Content)
	}
	if got := readTestFile(t, filepath.Join(ws.Root(), "real.txt")); got != "new" {
		t.Errorf("real.txt = %q, want the link's target to be written", got)
	}
	info, err := os.Lstat(filepath.Join(ws.Root(), "alias.txt"))
	if err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("alias.txt is no longer a symbolic link (err %v)", err)
	}
}

func TestWriteFilePreview(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{
		"hello.py":   "def greet(name):\n    return name\n",
		"binary.bin": "\x00\x01",
	})
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "new file", args: `{"path":"notes/new.txt","content":"one\ntwo\n"}`,
			want: "new file notes/new.txt (8 bytes)\n--- /dev/null\n+++ b/notes/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two"},
		{name: "changed line", args: `{"path":"hello.py","content":"def greet(name):\n    return f\"Hello, {name}!\"\n"}`,
			want: "overwrite hello.py (33 → 46 bytes)\n--- a/hello.py\n+++ b/hello.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    return name\n+    return f\"Hello, {name}!\""},
		{name: "same content", args: `{"path":"hello.py","content":"def greet(name):\n    return name\n"}`,
			want: "hello.py already has exactly this content; writing it changes nothing"},
		{name: "binary file", args: `{"path":"binary.bin","content":"text"}`,
			want: "replace the binary file binary.bin (2 bytes) with 4 bytes of text"},
		{name: "bad arguments", args: `{"path":"x"}`,
			want: `cannot preview: missing required argument "content" (the complete new content of the file)`},
		{name: "outside", args: `{"path":"../x","content":""}`,
			want: `cannot preview: path "../x" resolves to ` + filepath.Join(filepath.Dir(ws.Root()), "x") + ", outside the workspace " + ws.Root()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewWriteFile(ws).Preview([]byte(tt.args)); got != tt.want {
				t.Errorf("Preview =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "notes")); !os.IsNotExist(err) {
		t.Error("Preview created the notes folder; a preview must change nothing")
	}
}

func TestWriteFilePreviewIsCapped(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	content := strings.Repeat("line\n", 1000)
	got := NewWriteFile(ws).Preview([]byte(`{"path":"long.txt","content":` + quote(content) + `}`))
	lines := strings.Split(got, "\n")
	if len(lines) > maxPreviewLines+2 {
		t.Errorf("preview has %d lines, want at most about %d", len(lines), maxPreviewLines)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "more diff lines not shown") {
		t.Errorf("preview ends with %q, want a note about the lines left out", last)
	}
}

// TestWriteFileCancelled: a cancelled write writes nothing. Cancelled before
// it starts, write_file returns the context's error and creates nothing;
// cancelled in the middle of the content, the new file is removed and the
// old one is left as it was.
func TestWriteFileCancelled(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"data.txt": "old\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewWriteFile(ws).Run(ctx, []byte(`{"path":"new.txt","content":"x"}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: err = %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	content := io.MultiReader(strings.NewReader(strings.Repeat("new\n", 1<<16)), cancelling{cancel}, strings.NewReader("more"))
	err := replaceFile(ctx, ws.dir, "data.txt", content, 0o644, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("replaceFile cancelled halfway: err = %v, want context.Canceled", err)
	}
	if got := readTestFile(t, filepath.Join(ws.Root(), "data.txt")); got != "old\n" {
		t.Errorf("data.txt = %q after a cancelled write, want the old content", got)
	}
	entries, err := os.ReadDir(ws.Root())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries after cancelled writes, want only data.txt", len(entries))
	}
}

// cancelling is a reader that cancels a context when it is read, and ends.
type cancelling struct{ cancel context.CancelFunc }

func (c cancelling) Read([]byte) (int, error) {
	c.cancel()
	return 0, io.EOF
}

// TestWriteFileRespectsTheFile: write_file replaces a file by renaming a new
// one over it, which the kernel allows whatever the old file's own
// permissions. It must still refuse a read-only file (as the shell's
// "Permission denied" would), and a file with other hard links (replacing it
// would break them).
func TestWriteFileRespectsTheFile(t *testing.T) {
	t.Run("read-only file", func(t *testing.T) {
		ws := newTestWorkspace(t, map[string]string{"frozen.txt": "keep me\n"})
		path := filepath.Join(ws.Root(), "frozen.txt")
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		res := run(t, NewWriteFile(ws), `{"path":"frozen.txt","content":"changed"}`)
		want := "refused: frozen.txt is read-only (-r--r--r--); write_file does not replace a read-only file"
		if !res.IsError || res.Content != want {
			t.Errorf("Run = %+v, want the error %q", res, want)
		}
		if got := readTestFile(t, path); got != "keep me\n" {
			t.Errorf("frozen.txt = %q, want it unchanged", got)
		}
		if p := NewWriteFile(ws).Preview([]byte(`{"path":"frozen.txt","content":"changed"}`)); !strings.Contains(p, "writing it will be refused: frozen.txt is read-only") {
			t.Errorf("Preview = %q, want it to say the write will be refused", p)
		}
	})
	t.Run("hard link", func(t *testing.T) {
		ws := newTestWorkspace(t, map[string]string{"shared.txt": "one file, two names\n"})
		outside := outsideDir(t, ws)
		other := filepath.Join(outside, "other-name.txt")
		if err := os.Link(filepath.Join(ws.Root(), "shared.txt"), other); err != nil {
			t.Skipf("cannot make a hard link here: %v", err)
		}
		res := run(t, NewWriteFile(ws), `{"path":"shared.txt","content":"changed"}`)
		if !res.IsError || !strings.Contains(res.Content, "shared.txt has 2 hard links") {
			t.Errorf("Run = %+v, want a refusal naming the 2 hard links", res)
		}
		for _, p := range []string{filepath.Join(ws.Root(), "shared.txt"), other} {
			if got := readTestFile(t, p); got != "one file, two names\n" {
				t.Errorf("%s = %q, want it unchanged", p, got)
			}
		}
		a, errA := os.Stat(filepath.Join(ws.Root(), "shared.txt"))
		b, errB := os.Stat(other)
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			t.Error("the hard link was broken")
		}
	})
}

// Issue 28: under a quota (serve's learners) write_file refuses a write
// that would take the workspace past it, by bytes or by entries, and says
// which; a write that keeps within it, or replaces a file with a smaller
// one, goes through.
func TestWriteFileKeepsToTheQuota(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"a.txt": "0123456789", "b.txt": "x"})
	ws.SetQuota(Quota{Bytes: 100, Entries: 3})
	wf := NewWriteFile(ws)
	if res := run(t, wf, `{"path":"c.txt","content":"fits"}`); res.IsError {
		t.Fatalf("a write within the quota: %+v", res)
	}
	for _, tt := range []struct{ args, want string }{
		{`{"path":"d.txt","content":"one entry too many"}`, "it would hold 4 entries"},
		{`{"path":"a.txt","content":"` + strings.Repeat("x", 200) + `"}`, "its files would hold 205 bytes"},
	} {
		res := run(t, wf, tt.args)
		if !res.IsError || !strings.Contains(res.Content, "past its quota (100 bytes and 3 entries)") || !strings.Contains(res.Content, tt.want) {
			t.Errorf("%s: %+v", tt.args, res)
		}
	}
	if res := run(t, wf, `{"path":"a.txt","content":"short"}`); res.IsError {
		t.Errorf("replacing a file with a smaller one: %+v", res)
	}
}
