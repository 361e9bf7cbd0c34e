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
		Name: ReadFileName,
		Description: "Read a text file in the workspace and return its contents. " +
			"Files larger than 256 KiB are cut short. Binary files are refused.",
		Params: []history.ParamSpec{
			{Name: "path", Type: history.TypeString, Required: true, Path: true,
				Description: "the file to read, relative to the workspace root, e.g. hello.py"},
		},
	}
}

// Run reads the file.
func (t *ReadFile) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p ReadFileParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", ReadFileName, err), nil
	}
	abs, err := t.ws.Resolve(p.Path)
	if err != nil {
		return resolveFailure(err), nil
	}
	shown := t.ws.Rel(abs)

	// Stat before opening: opening a named pipe would block forever.
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failure("no such file: %s", shown), nil
	case err != nil:
		return failure("cannot read %s: %v", shown, unwrapPathError(err)), nil
	case info.IsDir():
		return failure("%s is a folder, not a file; use %s to see what is inside it", shown, ListFilesName), nil
	case !info.Mode().IsRegular():
		return failure("%s is not a regular file (it is a %s); only text files can be read", shown, info.Mode().Type()), nil
	}

	f, err := os.Open(abs)
	if err != nil {
		return failure("cannot read %s: %v", shown, unwrapPathError(err)), nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReadBytes))
	if err != nil {
		return failure("cannot read %s: %v", shown, unwrapPathError(err)), nil
	}
	if len(data) == 0 {
		return Result{Content: fmt.Sprintf("(%s is empty)", shown)}, nil
	}
	if isBinary(data) {
		return failure("%s looks like a binary file (%d bytes), not text; read_file only reads text files", shown, info.Size()), nil
	}

	text := string(data)
	if info.Size() > int64(len(data)) {
		// Cut at a character boundary and say so plainly.
		text = string(trimPartialRune(data))
		text += fmt.Sprintf("\n[... truncated: showing the first %d bytes of %d; the file is larger than read_file returns ...]",
			len(text), info.Size())
	}
	// A stray invalid byte past the first 8 KiB would otherwise travel to
	// the model as garbage; make it a visible replacement character.
	return Result{Content: strings.ToValidUTF8(text, "\uFFFD")}, nil
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

// unwrapPathError drops the *fs.PathError wrapping (which repeats the
// absolute path) so messages show only the workspace-relative name and the
// reason, such as "permission denied".
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
