package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/glassbox-dev/glassbox/history"
)

// WriteFileName is the name the model calls write_file by.
const WriteFileName = "write_file"

const (
	// maxPreviewLines caps write_file's diff preview.
	maxPreviewLines = 200
	// maxPreviewOldBytes is the largest existing file the preview diffs.
	maxPreviewOldBytes = 1 << 20
)

// WriteFileParams are write_file's arguments.
type WriteFileParams struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// WriteFile creates or replaces a file in the workspace.
type WriteFile struct {
	ws *Workspace
}

var (
	_ Tool      = (*WriteFile)(nil)
	_ Previewer = (*WriteFile)(nil)
)

// NewWriteFile returns the write_file tool for the workspace ws.
func NewWriteFile(ws *Workspace) *WriteFile { return &WriteFile{ws: ws} }

// Spec is write_file's definition for the model.
func (t *WriteFile) Spec() history.ToolSpec {
	return history.ToolSpec{
		Name: WriteFileName,
		Description: "Create a file in the workspace, or replace an existing file's whole content. " +
			"Missing parent folders are created.",
		Params: []history.ParamSpec{
			{Name: "path", Type: history.TypeString, Required: true, Path: true,
				Description: "the file to write, relative to the workspace root, e.g. notes/plan.txt"},
			{Name: "content", Type: history.TypeString, Required: true,
				Description: "the complete new content of the file"},
		},
	}
}

// Run writes the file.
func (t *WriteFile) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p WriteFileParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", WriteFileName, err), nil
	}
	if p.Path == "" {
		return failure("%s: the path is empty; name the file to write, e.g. notes/plan.txt", WriteFileName), nil
	}
	abs, err := t.ws.Resolve(p.Path)
	if err != nil {
		return resolveFailure(err), nil
	}
	shown := t.ws.Rel(abs)

	// An existing file keeps its permissions; a new one gets rw-r--r--.
	mode := fs.FileMode(0o644)
	created := true
	info, err := os.Stat(abs)
	switch {
	case err == nil && info.IsDir():
		return failure("%s is a folder; write_file can only write files", shown), nil
	case err == nil && !info.Mode().IsRegular():
		return failure("%s is not a regular file (it is a %s); write_file will not replace it", shown, info.Mode().Type()), nil
	case err == nil:
		mode, created = info.Mode().Perm(), false
	case !errors.Is(err, fs.ErrNotExist):
		return failure("cannot write %s: %v", shown, unwrapPathError(err)), nil
	}

	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return failure("cannot create the folder for %s: %v", shown, unwrapPathError(err)), nil
	}
	if err := writeAtomically(abs, []byte(p.Content), mode); err != nil {
		return failure("cannot write %s: %v", shown, unwrapPathError(err)), nil
	}
	how := "overwrote the existing file"
	if created {
		how = "created a new file"
	}
	return Result{Content: fmt.Sprintf("wrote %d bytes to %s (%s)", len(p.Content), shown, how)}, nil
}

// writeAtomically replaces path with data so that a reader sees either the
// old file or the new one, never half of it: the data goes to a temporary
// file in the same folder, which is then renamed over path in one step.
func writeAtomically(path string, data []byte, mode fs.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".glassbox-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Preview shows the change as a unified line diff of the current content
// (none for a new file) and the new content.
func (t *WriteFile) Preview(args json.RawMessage) string {
	var p WriteFileParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return "cannot preview: " + err.Error()
	}
	abs, err := t.ws.Resolve(p.Path)
	if err != nil {
		return "cannot preview: " + err.Error()
	}
	shown := t.ws.Rel(abs)

	info, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("new file %s (%d bytes)\n", shown, len(p.Content)) +
			unifiedDiff("/dev/null", "b/"+shown, "", p.Content, maxPreviewLines)
	}
	if err != nil {
		return fmt.Sprintf("cannot preview %s: %v", shown, unwrapPathError(err))
	}
	if !info.Mode().IsRegular() {
		return fmt.Sprintf("%s is not a regular file; writing it will fail", shown)
	}
	if info.Size() > maxPreviewOldBytes {
		return fmt.Sprintf("replace %s (%d bytes, too large to diff) with %d bytes of new content", shown, info.Size(), len(p.Content))
	}
	old, err := readSmallFile(abs)
	if err != nil {
		return fmt.Sprintf("cannot preview %s: %v", shown, unwrapPathError(err))
	}
	if isBinary(old) {
		return fmt.Sprintf("replace the binary file %s (%d bytes) with %d bytes of text", shown, len(old), len(p.Content))
	}
	if string(old) == p.Content {
		return fmt.Sprintf("%s already has exactly this content; writing it changes nothing", shown)
	}
	return fmt.Sprintf("overwrite %s (%d → %d bytes)\n", shown, len(old), len(p.Content)) +
		unifiedDiff("a/"+shown, "b/"+shown, string(old), p.Content, maxPreviewLines)
}

// readSmallFile reads at most maxPreviewOldBytes of a file.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxPreviewOldBytes))
}
