package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/history"
)

// ReadFileName is the name the model calls read_file by.
const ReadFileName = "read_file"

const (
	// maxReadBytes caps what read_file returns, so one huge file cannot
	// flood the model's context.
	maxReadBytes = 256 << 10
	// binarySniffBytes is how much of a file read_file inspects to decide
	// whether it is text.
	binarySniffBytes = 8 << 10
)

// ReadFileParams are read_file's arguments.
type ReadFileParams struct {
	Path string `json:"path"`
}

// ReadFile reads a text file from the workspace.
type ReadFile struct {
	ws *Workspace
}

var _ Tool = (*ReadFile)(nil)

// NewReadFile returns the read_file tool for the workspace ws.
func NewReadFile(ws *Workspace) *ReadFile { return &ReadFile{ws: ws} }

// Spec is read_file's definition for the model.
func (t *ReadFile) Spec() history.ToolSpec {
	return history.ToolSpec{
		Name:  ReadFileName,
		Attrs: history.Attributes{ReadsOnly: true},
		Description: "Read a text file in the workspace and return its contents. " +
			"Files larger than 256 KiB are cut short. Binary files are refused.",
		Params: []history.ParamSpec{
			{Name: "path", Type: history.TypeString, Required: true, Path: true,
				Description: "the file to read, relative to the workspace root, e.g. hello.py"},
		},
	}
}

// Run reads the file. Bidirectional controls in the result are escaped (see
// EscapeBidi).
func (t *ReadFile) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	res := t.read(args)
	res.Content = EscapeBidi(res.Content)
	return res, nil
}

func (t *ReadFile) read(args json.RawMessage) Result {
	var p ReadFileParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", ReadFileName, err)
	}
	file, err := t.ws.target(p.Path)
	if err != nil {
		return resolveFailure(err)
	}
	shown := file.shown

	// Stat before opening: opening a named pipe would block forever, and
	// opening a device can have effects of its own.
	info, err := t.ws.dir.Stat(file.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failure("no such file: %s", shown)
	case err != nil:
		return fileFailure("read", shown, err)
	case info.IsDir():
		return failure("%s is a folder, not a file; use %s to see what is inside it", shown, ListFilesName)
	case !info.Mode().IsRegular():
		return failure("%s is not a regular file (it is %s); only text files can be read", shown, DescribeFileType(info.Mode()))
	}

	// O_NONBLOCK: should the file have been swapped for a named pipe since
	// the Stat, opening it returns at once instead of waiting for a writer.
	f, err := t.ws.dir.OpenFile(file.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fileFailure("read", shown, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return fileFailure("read", shown, err)
	}
	if !os.SameFile(info, opened) {
		return failure("%s was replaced while read_file was opening it; nothing was read, try again", shown)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReadBytes))
	if err != nil {
		return fileFailure("read", shown, err)
	}
	if len(data) == 0 {
		return Result{Content: fmt.Sprintf("(%s is empty)", shown)}
	}
	if isBinary(data) {
		return failure("%s looks like a binary file (%d bytes), not text; read_file only reads text files", shown, opened.Size())
	}

	text := string(data)
	if opened.Size() > int64(len(data)) {
		// Cut at a character boundary and say so plainly.
		text = string(trimPartialRune(data))
		text += fmt.Sprintf("\n[... truncated: showing the first %d bytes of %d; the file is larger than read_file returns ...]",
			len(text), opened.Size())
	}
	// A stray invalid byte past the first 8 KiB would otherwise travel to
	// the model as garbage; make it a visible replacement character.
	return Result{Content: strings.ToValidUTF8(text, "\uFFFD")}
}

// DescribeFileType names the kind of file mode describes, for messages: "a
// named pipe", "a character device", "a folder", ...
func DescribeFileType(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "a regular file"
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file (" + mode.Type().String() + ")"
}

// isBinary reports whether data (the start of a file) is not UTF-8 text: a
// NUL byte or invalid UTF-8 in the first 8 KiB.
func isBinary(data []byte) bool {
	head := data
	if len(head) > binarySniffBytes {
		// The cut may fall in the middle of a multi-byte character.
		head = trimPartialRune(head[:binarySniffBytes])
	}
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head)
}

// trimPartialRune drops an incomplete UTF-8 character at the end of b, left
// there when b was cut at an arbitrary byte.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		start := len(b) - i
		if utf8.RuneStart(b[start]) {
			if !utf8.FullRune(b[start:]) {
				return b[:start]
			}
			return b
		}
	}
	return b
}

// unwrapPathError drops the *fs.PathError or *os.LinkError wrapping (which
// repeats the path) so messages show only the workspace-relative name and the
// reason, such as "permission denied".
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
