package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
)

// ListFilesName is the name the model calls list_files by.
const ListFilesName = "list_files"

// maxListEntries caps one listing, so a huge tree cannot flood the model's
// context.
const maxListEntries = 500

// ListFilesParams are list_files' arguments.
type ListFilesParams struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive"`
}

// ListFiles lists a folder of the workspace.
type ListFiles struct {
	ws *Workspace
}

var _ Tool = (*ListFiles)(nil)

// NewListFiles returns the list_files tool for the workspace ws.
func NewListFiles(ws *Workspace) *ListFiles { return &ListFiles{ws: ws} }

// Spec is list_files' definition for the model.
func (t *ListFiles) Spec() history.ToolSpec {
	return history.ToolSpec{
		Name: ListFilesName,
		Description: "List the files and folders in a workspace folder, one per line, relative to the " +
			"workspace root. Folders end with a slash. The .git folder is skipped.",
		Params: []history.ParamSpec{
			{Name: "path", Type: history.TypeString, Path: true,
				Description: `the folder to list, relative to the workspace root; default "." (the root)`},
			{Name: "recursive", Type: history.TypeBoolean,
				Description: "true to include everything inside sub-folders too; default false"},
		},
	}
}

// Run lists the folder.
func (t *ListFiles) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p ListFilesParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", ListFilesName, err), nil
	}
	if p.Path == "" {
		p.Path = "."
	}
	abs, err := t.ws.Resolve(p.Path)
	if err != nil {
		return resolveFailure(err), nil
	}
	shown := t.ws.Rel(abs)

	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failure("no such folder: %s", shown), nil
	case err != nil:
		return failure("cannot list %s: %v", shown, unwrapPathError(err)), nil
	case !info.IsDir():
		return failure("%s is a file, not a folder; use %s to read it", shown, ReadFileName), nil
	}

	l := listing{ws: t.ws}
	if p.Recursive {
		err = l.walk(ctx, abs)
	} else {
		err = l.readDir(abs)
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Content: l.String(shown)}, nil
}

// listing collects entries up to maxListEntries and counts the rest.
type listing struct {
	ws       *Workspace
	entries  []string
	omitted  int
	problems []string // folders that could not be read
}

// add records one entry, shown relative to the workspace root.
func (l *listing) add(abs string, isDir bool) {
	if len(l.entries) >= maxListEntries {
		l.omitted++
		return
	}
	name := l.ws.Rel(abs)
	if isDir {
		name += "/"
	}
	l.entries = append(l.entries, name)
}

// readDir lists one folder. os.ReadDir returns the entries sorted by name.
func (l *listing) readDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		l.problems = append(l.problems, fmt.Sprintf("cannot read %s: %v", l.ws.Rel(dir), unwrapPathError(err)))
		return nil
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() == ".git" {
			continue
		}
		l.add(filepath.Join(dir, e.Name()), e.IsDir())
	}
	return nil
}

// walk lists a folder and everything below it, each folder's entries sorted
// by name and followed by its contents. filepath.WalkDir does not follow
// symbolic links, so the walk cannot wander out of the workspace.
func (l *listing) walk(ctx context.Context, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			// An unreadable folder is reported in the listing, not fatal.
			l.problems = append(l.problems, fmt.Sprintf("cannot read %s: %v", l.ws.Rel(path), unwrapPathError(err)))
			return nil
		}
		if path == root {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		l.add(path, d.IsDir())
		return nil
	})
}

// String renders the listing of the folder shown.
func (l *listing) String(shown string) string {
	var b strings.Builder
	if len(l.entries) == 0 && len(l.problems) == 0 {
		fmt.Fprintf(&b, "(the folder %s is empty)", shown)
		return b.String()
	}
	b.WriteString(strings.Join(l.entries, "\n"))
	for _, p := range l.problems {
		fmt.Fprintf(&b, "\n[%s]", p)
	}
	if l.omitted > 0 {
		fmt.Fprintf(&b, "\n[... %d more entries not shown (the limit is %d); list a sub-folder to see them ...]", l.omitted, maxListEntries)
	}
	return b.String()
}
