package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/tools"
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

// scribbleTool is a tool no rule or list names: it writes notes.txt and
// declares that it changes files.
type scribbleTool struct{ root string }

func (s scribbleTool) Spec() history.ToolSpec {
	return history.ToolSpec{Name: "scribble", Description: "scribbles on notes.txt", Attrs: history.Attributes{ChangesFiles: true}}
}
func (s scribbleTool) Run(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "scribbled"}, os.WriteFile(filepath.Join(s.root, "notes.txt"), []byte("scribbled\n"), 0o644)
}

// TestSnapshotsFollowTheAttribute: a tool is snapshotted because it declares
// it changes files, whatever its name, so a fork puts back what it wrote.
func TestSnapshotsFollowTheAttribute(t *testing.T) {
	r := newSessionRig(t, calls(history.ToolCall{Name: "scribble", Args: json.RawMessage(`{}`)}), text("done"))
	r.person.approvals = []Approval{AllowOnce}
	reg, err := tools.NewRegistry(scribbleTool{root: r.ws.Root()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := r.config()
	cfg.Tools = reg
	if r.engine, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	r.engine.SetJournal(NewJournal(r.w, "", r.ws.Root()))
	r.engine.Submit(Event{Source: "cli", Type: "user_input", Data: "scribble"})
	ts := stepUntil(t, r.engine, CheckingPolicy)
	k := ts[len(ts)-1].Seq
	stepUntil(t, r.engine, "")
	if s, _ := readFile(t, r, "notes.txt"); s != "scribbled\n" {
		t.Fatalf("the tool did not run: notes.txt = %q", s)
	}
	if err := r.engine.Fork(k); err != nil {
		t.Fatal(err)
	}
	if s, _ := readFile(t, r, "notes.txt"); s != "original\n" {
		t.Fatalf("after the fork notes.txt = %q, want the original (the tool's changes were not kept)", s)
	}
}

// Issue 28 finding 1: a snapshot counts folders, links and every other
// entry, not only regular files: a workspace of empty folders past
// SnapshotMaxEntries is too large to keep, with the limit named, however
// few files it holds (before, 300,000 folders were all kept).
func TestSnapshotCountsEveryEntry(t *testing.T) {
	root := t.TempDir()
	for i := range SnapshotMaxEntries + 1 {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("d%05d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	blobs := session.OpenBlobs(filepath.Join(t.TempDir(), "s.jsonl"))
	_, err := scanWorkspace(root, blobs)
	if !errors.Is(err, errSnapshotTooLarge) || !strings.Contains(err.Error(), "more than 5,000 entries") {
		t.Fatalf("scan of %d folders: %v", SnapshotMaxEntries+1, err)
	}
	if err := os.Remove(filepath.Join(root, "d00000")); err != nil {
		t.Fatal(err)
	}
	if m, err := scanWorkspace(root, blobs); err != nil || len(m) != SnapshotMaxEntries {
		t.Fatalf("at the limit: %d entries, %v", len(m), err)
	}
}
