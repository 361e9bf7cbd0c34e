package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListFiles(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{
		"hello.py":         "",
		"README.md":        "",
		"notes/todo.txt":   "",
		"notes/deep/a.txt": "",
		".git/HEAD":        "ref: refs/heads/main\n",
		".env.example":     "",
	})
	if err := os.Mkdir(filepath.Join(ws.Root(), "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := outsideDir(t, ws)
	symlink(t, outside, filepath.Join(ws.Root(), "outlink"))

	tests := []struct {
		name        string
		args        string
		want        string
		wantIsError bool
	}{
		{name: "root by default", args: `{}`,
			want: ".env.example\nREADME.md\nempty/\nhello.py\nnotes/\noutlink"},
		{name: "root by dot", args: `{"path":"."}`,
			want: ".env.example\nREADME.md\nempty/\nhello.py\nnotes/\noutlink"},
		{name: "sub-folder shows paths from the root", args: `{"path":"notes"}`,
			want: "notes/deep/\nnotes/todo.txt"},
		{name: "recursive skips .git and does not follow links", args: `{"recursive":true}`,
			want: ".env.example\nREADME.md\nempty/\nhello.py\nnotes/\nnotes/deep/\nnotes/deep/a.txt\nnotes/todo.txt\noutlink"},
		{name: "recursive sub-folder", args: `{"path":"notes/","recursive":true}`,
			want: "notes/deep/\nnotes/deep/a.txt\nnotes/todo.txt"},
		{name: "empty folder", args: `{"path":"empty"}`, want: "(the folder empty is empty)"},
		{name: "missing folder", args: `{"path":"nope"}`, want: "no such folder: nope", wantIsError: true},
		{name: "a file", args: `{"path":"hello.py"}`,
			want: "hello.py is a file, not a folder; use read_file to read it", wantIsError: true},
		{name: "symlink to a folder outside", args: `{"path":"outlink"}`,
			want: `refused: path "outlink" resolves to ` + outside + ", outside the workspace " + ws.Root(), wantIsError: true},
		{name: "dot-dot", args: `{"path":".."}`,
			want: `refused: path ".." resolves to ` + filepath.Dir(ws.Root()) + ", outside the workspace " + ws.Root(), wantIsError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, NewListFiles(ws), tt.args)
			if res.Content != tt.want || res.IsError != tt.wantIsError {
				t.Errorf("Run(%s) =\n%s\n(IsError %v)\nwant\n%s\n(IsError %v)", tt.args, res.Content, res.IsError, tt.want, tt.wantIsError)
			}
		})
	}
}

func TestListFilesCap(t *testing.T) {
	tests := []struct {
		name        string
		files       int
		recursive   bool
		wantEntries int
		wantNote    string
	}{
		{name: "under the cap", files: 20, wantEntries: 20},
		{name: "exactly the cap", files: maxListEntries, wantEntries: maxListEntries},
		{name: "over the cap", files: maxListEntries + 37, wantEntries: maxListEntries,
			wantNote: "[... 37 more entries not shown (the limit is 500); list a sub-folder to see them ...]"},
		{name: "over the cap, recursive", files: maxListEntries + 37, recursive: true, wantEntries: maxListEntries,
			wantNote: "[... 38 more entries not shown (the limit is 500); list a sub-folder to see them ...]"}, // + the folder
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newTestWorkspace(t, nil)
			dir := filepath.Join(ws.Root(), "many")
			for i := range tt.files {
				writeTestFile(t, filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), "")
			}
			args := `{"path":"many"}`
			if tt.recursive {
				args = `{"recursive":true}`
			}
			res := run(t, NewListFiles(ws), args)
			lines := strings.Split(res.Content, "\n")
			note := ""
			if last := lines[len(lines)-1]; strings.HasPrefix(last, "[...") {
				note, lines = last, lines[:len(lines)-1]
			}
			if len(lines) != tt.wantEntries {
				t.Errorf("got %d entries, want %d", len(lines), tt.wantEntries)
			}
			if note != tt.wantNote {
				t.Errorf("note = %q, want %q", note, tt.wantNote)
			}
		})
	}
}

func TestListFilesCancelled(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"a/b.txt": ""})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewListFiles(ws).Run(ctx, []byte(`{"recursive":true}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: err = %v, want context.Canceled", err)
	}
}
