package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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
		Name:  WriteFileName,
		Attrs: history.Attributes{ChangesFiles: true},
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

// Run writes the file. A cancelled ctx writes nothing: the call returns
// ctx's error and no file is created, changed or left behind.
func (t *WriteFile) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	res, err := t.write(ctx, args)
	res.Content = EscapeBidi(res.Content)
	return res, err
}

func (t *WriteFile) write(ctx context.Context, args json.RawMessage) (Result, error) {
	var p WriteFileParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", WriteFileName, err), nil
	}
	if p.Path == "" {
		return failure("%s: the path is empty; name the file to write, e.g. notes/plan.txt", WriteFileName), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	file, err := t.ws.target(p.Path)
	if err != nil {
		return resolveFailure(err), nil
	}
	info, mode, refused := t.existing(file)
	if refused != nil {
		return *refused, nil
	}
	if why := t.quotaRefusal(len(p.Content), info); why != "" {
		return failure("refused: writing %s would take the workspace past its quota (%s): %s; remove files first", file.shown, t.ws.Quota(), why), nil
	}
	if res, err := t.place(ctx, file, p.Content, mode, info); res.IsError || err != nil {
		return res, err
	}
	how := "overwrote the existing file"
	if info == nil {
		how = "created a new file"
	}
	return Result{Content: fmt.Sprintf("wrote %d bytes to %s (%s)", len(p.Content), file.shown, how)}, nil
}

// existing looks at what the path holds now: nothing (info nil, a new
// file gets rw-r--r--), a regular file write_file may replace (its info
// and mode, which it keeps), or something it refuses to replace.
func (t *WriteFile) existing(file target) (fs.FileInfo, fs.FileMode, *Result) {
	refuse := func(r Result) (fs.FileInfo, fs.FileMode, *Result) { return nil, 0, &r }
	info, err := t.ws.dir.Stat(file.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0o644, nil
	case err != nil:
		return refuse(fileFailure("write", file.shown, err))
	case info.IsDir():
		return refuse(failure("%s is a folder; write_file can only write files", file.shown))
	case !info.Mode().IsRegular():
		return refuse(failure("%s is not a regular file (it is %s); write_file will not replace it", file.shown, DescribeFileType(info.Mode())))
	}
	if why := t.wontReplace(file, info); why != "" {
		return refuse(failure("refused: %s", why))
	}
	return info, info.Mode().Perm(), nil
}

// quotaRefusal says why writing n bytes over old (nil: a new file) would
// take the workspace past its quota, or "" when it would not (or there is
// none).
func (t *WriteFile) quotaRefusal(n int, old fs.FileInfo) string {
	q := t.ws.Quota()
	if !q.Set() {
		return ""
	}
	use, err := workspaceUsage(t.ws.Root(), q)
	if err != nil {
		return "it holds " + err.Error()
	}
	bytes, entries := use.Bytes+int64(n), use.Entries
	if old != nil {
		bytes -= old.Size()
	} else {
		entries++
	}
	switch {
	case q.Bytes > 0 && bytes > q.Bytes:
		return fmt.Sprintf("its files would hold %d bytes", bytes)
	case q.Entries > 0 && entries > q.Entries:
		return fmt.Sprintf("it would hold %s", countWords(entries, "entry", "entries"))
	}
	return ""
}

// place writes content into the file's folder (made if missing), held by
// its descriptor: the new file is created, renamed and, on failure,
// removed in this very folder, wherever its path leads by then.
func (t *WriteFile) place(ctx context.Context, file target, content string, mode fs.FileMode, old fs.FileInfo) (Result, error) {
	folder := filepath.Dir(file.name)
	if err := t.ws.dir.MkdirAll(folder, 0o755); err != nil {
		return fileFailure("create the folder for", file.shown, err), nil
	}
	dir, err := t.ws.dir.OpenRoot(folder)
	if err != nil {
		return fileFailure("write", file.shown, err), nil
	}
	defer dir.Close()
	err = replaceFile(ctx, dir, filepath.Base(file.name), strings.NewReader(content), mode, old)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return Result{}, ctxErr
	}
	if err != nil {
		return fileFailure("write", file.shown, err), nil
	}
	return Result{}, nil
}

// wontReplace says why write_file leaves the existing file (described by
// info) alone, or "" when it may replace it:
//
//   - A file without any write permission (0444) is read-only on purpose.
//     The shell would get "Permission denied"; write_file, which replaces
//     the file rather than writing into it, would otherwise succeed. Root,
//     whom the kernel lets write anything, is held to the same rule.
//   - A file the user running glassbox may not open for writing (someone
//     else's) is not replaced either, for the same reason.
//   - A file with more than one hard link has other names, perhaps outside
//     the workspace, with nothing to tell where. Replacing it would quietly
//     break the link (the other names keep the old content); writing into
//     it would change the file under every name, possibly outside the
//     workspace. Neither is what a model asking to write one file means, so
//     write_file refuses and says why.
func (t *WriteFile) wontReplace(file target, info fs.FileInfo) string {
	if info.Mode().Perm()&0o222 == 0 {
		return fmt.Sprintf("%s is read-only (%s); write_file does not replace a read-only file", file.shown, info.Mode().Perm())
	}
	// Opening for writing, without truncating, asks the kernel's own
	// permission check and changes nothing.
	f, err := t.ws.dir.OpenFile(file.name, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Sprintf("%s is not writable by the user running glassbox (permission denied); write_file does not replace it", file.shown)
	}
	if err == nil {
		_ = f.Close()
	}
	if n := linkCount(info); n > 1 {
		return fmt.Sprintf("%s has %d hard links (other names for the same file, which may be outside the workspace); "+
			"write_file neither breaks the link nor writes through it", file.shown, n)
	}
	return ""
}

// replaceFile writes content to the file name in dir so that a reader sees
// either the old file or the new one, never half of it: the content goes to
// a new file in the same folder, which is then renamed over name in one
// step. The new file gets mode and, where the system allows, the owner of
// old (the file being replaced; nil for a new file).
//
// Where the system offers it (Linux's O_TMPFILE), the new file has no name
// until its content is complete, so a write interrupted even by SIGKILL
// leaves nothing behind; elsewhere it is a hidden .NAME.glassbox-*.tmp file,
// removed when anything fails. ctx is checked between chunks and before the
// rename: a cancelled write renames nothing and removes its file.
func replaceFile(ctx context.Context, dir *os.Root, name string, content io.Reader, mode fs.FileMode, old fs.FileInfo) (err error) {
	tmp, err := newTempFile(dir, name)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.discard()
		}
	}()
	if err = copyContext(ctx, tmp.f, content); err != nil {
		return err
	}
	if err = tmp.f.Chmod(mode); err != nil {
		return err
	}
	if old != nil {
		keepOwner(tmp.f, old)
	}
	if err = tmp.f.Sync(); err != nil {
		return err
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	return tmp.commit(name)
}

// copyContext copies r to w in chunks, stopping when ctx is cancelled.
func copyContext(ctx context.Context, w io.Writer, r io.Reader) error {
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// tempFile is write_file's new content on its way into place, in the folder
// dir.
type tempFile struct {
	dir  *os.Root
	f    *os.File
	name string // "" while the file has no name yet (O_TMPFILE)
}

// newTempFile creates the file that will replace target in dir: nameless if
// the system can (openUnnamed), otherwise under a fresh hidden name.
func newTempFile(dir *os.Root, target string) (*tempFile, error) {
	if f, err := openUnnamed(dir); err == nil {
		return &tempFile{dir: dir, f: f}, nil
	}
	for {
		name := tempName(target)
		f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // another write picked the same name; draw again
		}
		if err != nil {
			return nil, err
		}
		return &tempFile{dir: dir, f: f, name: name}, nil
	}
}

// tempName is a fresh hidden name next to target: .TARGET.glassbox-N.tmp,
// with TARGET cut so the whole name stays within maxNameBytes.
func tempName(target string) string {
	if len(target) > 200 {
		target = target[:200]
	}
	return fmt.Sprintf(".%s.glassbox-%d.tmp", target, rand.Uint32())
}

// commit gives the file its name (when it has none yet) and renames it over
// target.
func (t *tempFile) commit(target string) error {
	for t.name == "" {
		name := tempName(target)
		err := linkUnnamed(t.dir, t.f, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		t.name = name
	}
	if err := t.f.Close(); err != nil {
		return err
	}
	return t.dir.Rename(t.name, target)
}

// discard closes and removes the file after a failure.
func (t *tempFile) discard() {
	_ = t.f.Close()
	if t.name != "" {
		_ = t.dir.Remove(t.name)
	}
}

// Preview shows the change as a unified line diff of the current content
// (none for a new file) and the new content. Bidirectional controls in it
// are escaped, so the diff a person approves reads as what will be written.
func (t *WriteFile) Preview(args json.RawMessage) string {
	return EscapeBidi(t.preview(args))
}

func (t *WriteFile) preview(args json.RawMessage) string {
	var p WriteFileParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return "cannot preview: " + err.Error()
	}
	file, err := t.ws.target(p.Path)
	if err != nil {
		return "cannot preview: " + err.Error()
	}
	shown := file.shown

	info, err := t.ws.dir.Stat(file.name)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("new file %s (%d bytes)\n", shown, len(p.Content)) +
			unifiedDiff("/dev/null", "b/"+shown, "", p.Content, maxPreviewLines)
	}
	if err != nil {
		return "cannot preview: " + fileFailure("read", shown, err).Content
	}
	if !info.Mode().IsRegular() {
		return fmt.Sprintf("%s is not a regular file; writing it will fail", shown)
	}
	if why := t.wontReplace(file, info); why != "" {
		return "writing it will be refused: " + why
	}
	if info.Size() > maxPreviewOldBytes {
		return fmt.Sprintf("replace %s (%d bytes, too large to diff) with %d bytes of new content", shown, info.Size(), len(p.Content))
	}
	old, err := t.readSmallFile(file.name)
	if err != nil {
		return "cannot preview: " + fileFailure("read", shown, err).Content
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

// readSmallFile reads at most maxPreviewOldBytes of the file name, through
// the workspace's os.Root.
func (t *WriteFile) readSmallFile(name string) ([]byte, error) {
	f, err := t.ws.dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxPreviewOldBytes))
}
