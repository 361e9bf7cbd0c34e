package loop

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/glassbox-dev/glassbox/history/session"
)

// Whatever a command does to files and folders, undoing its recorded
// changes brings back the same tree.
func TestUndoChangesRestoresTheTree(t *testing.T) {
	root := t.TempDir()
	blobs := session.OpenBlobs(filepath.Join(t.TempDir(), "s.jsonl"))
	write := func(name, content string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a", 0o644)
	write("notes/todo.txt", "todo", 0o600)
	write("run.sh", "#!/bin/sh", 0o755)
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	before, err := scanWorkspace(root, blobs)
	if err != nil {
		t.Fatal(err)
	}
	// What a command might do: remove a file and a whole folder, put a file
	// where the folder was, make nested folders, change a mode.
	os.Remove(filepath.Join(root, "a.txt"))
	os.RemoveAll(filepath.Join(root, "notes"))
	os.Remove(filepath.Join(root, "empty"))
	write("notes", "now a file", 0o644)
	write("x/y/z.txt", "deep", 0o644)
	os.Chmod(filepath.Join(root, "run.sh"), 0o644)
	after, err := scanWorkspace(root, blobs)
	if err != nil {
		t.Fatal(err)
	}
	changes := &session.Changes{Files: diffManifests(before, after)}
	if err := undoChanges(root, blobs, []*session.Changes{changes}); err != nil {
		t.Fatal(err)
	}
	again, err := scanWorkspace(root, blobs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, again) {
		t.Fatalf("after undo\n%v\nwant\n%v", again, before)
	}
}
