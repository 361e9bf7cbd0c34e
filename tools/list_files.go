package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
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
		Name:  ListFilesName,
		Attrs: history.Attributes{ReadsOnly: true},
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

// Run lists the folder. The listing is read through the workspace's os.Root,
// so no folder outside the workspace is ever opened.
func (t *ListFiles) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var p ListFilesParams
	if err := decodeArgs(args, t.Spec(), &p); err != nil {
		return failure("%s: %v", ListFilesName, err), nil
	}
	if p.Path == "" {
		p.Path = "."
	}
	folder, err := t.ws.target(p.Path)
	if err != nil {
		return resolveFailure(err), nil
	}

	info, err := t.ws.dir.Stat(folder.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failure("no such folder: %s", folder.shown), nil
	case err != nil:
		return fileFailure("list", folder.shown, err), nil
	case !info.IsDir():
		return failure("%s is a file, not a folder; use %s to read it", folder.shown, ReadFileName), nil
	}

	// The workspace as an fs.FS whose every Open goes through os.Root:
	// paths in it are slash-separated and relative to the workspace root,
	// which is how the listing shows them.
	l := listing{fsys: t.ws.dir.FS()}
	start := filepath.ToSlash(folder.name)
	if p.Recursive {
		err = l.walk(ctx, start)
	} else {
		l.readDir(start)
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Content: l.String(folder.shown)}, nil
}

// listing collects entries up to maxListEntries and counts the rest.
type listing struct {
	fsys     fs.FS
	entries  []string
	omitted  int
	problems []string // folders that could not be read
}

// add records one entry, given by its slash-separated path from the
// workspace root.
func (l *listing) add(name string, isDir bool) {
	if len(l.entries) >= maxListEntries {
		l.omitted++
		return
	}
	name = EscapeBidi(name)
	if isDir {
		name += "/"
	}
	l.entries = append(l.entries, name)
}

// problem records a folder that could not be read, in the listing itself.
func (l *listing) problem(dir string, err error) {
	l.problems = append(l.problems, fileFailure("read", EscapeBidi(dir), err).Content)
}

// readDir lists one folder. fs.ReadDir returns the entries sorted by name.
func (l *listing) readDir(dir string) {
	entries, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		l.problem(dir, err)
		return
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() == ".git" {
			continue
		}
		l.add(path.Join(dir, e.Name()), e.IsDir())
	}
}

// walk lists a folder and everything below it, each folder's entries sorted
// by name and followed by its contents. fs.WalkDir does not follow symbolic
// links, and the file system under it is the workspace's os.Root, so the
// walk cannot wander out of the workspace even if a folder is swapped for a
// link while it runs.
func (l *listing) walk(ctx context.Context, root string) error {
	return fs.WalkDir(l.fsys, root, func(name string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			// An unreadable folder is reported in the listing, not fatal.
			l.problem(name, err)
			return nil
		}
		if name == root {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		l.add(name, d.IsDir())
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
