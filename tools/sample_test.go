package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCopySample(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "created", "by", "copy")
	if err := CopySample(dst); err != nil {
		t.Fatalf("CopySample: %v", err)
	}
	tests := []struct {
		name string
		file string
		want func(string) bool
		desc string
	}{
		{name: "hello.py defines greet", file: "hello.py", desc: `contains "def greet(name):"`,
			want: func(s string) bool { return strings.Contains(s, "def greet(name):") }},
		{name: "hello.py prints the greeting", file: "hello.py", desc: `contains print(greet("world"))`,
			want: func(s string) bool { return strings.Contains(s, `print(greet("world"))`) }},
		{name: "README title", file: "README.md", desc: `starts with "# sample project"`,
			want: func(s string) bool { return strings.HasPrefix(s, "# sample project\n") }},
		{name: "todo list", file: "notes/todo.txt", desc: "is the two lessons' tasks",
			want: func(s string) bool {
				return s == "- add a farewell(name) function to hello.py\n- write a test for greet\n"
			}},
		{name: "old log", file: "old_log.txt", desc: "has a few lines",
			want: func(s string) bool { return strings.Count(s, "\n") >= 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readTestFile(t, filepath.Join(dst, filepath.FromSlash(tt.file)))
			if !tt.want(got) {
				t.Errorf("%s: want it to be something that %s; got:\n%s", tt.file, tt.desc, got)
			}
		})
	}
}

// TestCopySampleCopiesEveryFile checks the copy against the embedded files,
// so a file added to sample/ cannot be silently left out.
func TestCopySampleCopiesEveryFile(t *testing.T) {
	dst := t.TempDir()
	if err := CopySample(dst); err != nil {
		t.Fatal(err)
	}
	count := 0
	err := fs.WalkDir(sampleFiles, sampleDir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		count++
		want, err := sampleFiles.ReadFile(name)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(name, sampleDir+"/")
		if got := readTestFile(t, filepath.Join(dst, filepath.FromSlash(rel))); got != string(want) {
			t.Errorf("%s: copied content differs from the embedded file", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if count != 4 {
		t.Errorf("the sample project has %d files, want 4 (hello.py, README.md, notes/todo.txt, old_log.txt)", count)
	}
}

func TestCopySampleIntoAFileFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	writeTestFile(t, file, "x")
	if err := CopySample(file); err == nil {
		t.Error("CopySample into a file succeeded, want an error")
	}
}

func TestNewSampleWorkspace(t *testing.T) {
	ws, err := NewSampleWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(ws.Root()) })

	if !strings.HasPrefix(filepath.Base(ws.Root()), "glassbox-workspace-") {
		t.Errorf("Root() = %q, want a folder named glassbox-workspace-*", ws.Root())
	}
	if got := readTestFile(t, filepath.Join(ws.Root(), "hello.py")); !strings.Contains(got, "def greet") {
		t.Errorf("hello.py in the sample workspace lacks def greet:\n%s", got)
	}

	other, err := NewSampleWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(other.Root()) })
	if other.Root() == ws.Root() {
		t.Error("two sample workspaces share a folder; each must be a fresh copy")
	}
}
