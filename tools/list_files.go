package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
)

// ListFilesName is the name the model calls list_files by.
const ListFilesName = "list_files"

// maxListEntries caps one listing, so a huge tree cannot flood the model's
// context.
const maxListEntries = 500

// listWalkEntries caps the entries one listing reads, shown or not: past
// it the listing stops counting and says so (a folder of a million entries
// costs no more than this).
const listWalkEntries = 20 * maxListEntries

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
	l := listing{fsys: t.ws.dir.FS(), start: filepath.ToSlash(folder.name), recursive: p.Recursive}
	if _, err := Walk(ctx, l.fsys, l.start, WalkLimits{Entries: listWalkEntries}, l.visit); err != nil {
		var limit *WalkLimitError
		if !errors.As(err, &limit) {
			return Result{}, err
		}
		l.stopped = limit
	}
	return Result{Content: l.String(folder.shown)}, nil
}

// listing collects entries up to maxListEntries and counts the rest.
type listing struct {
	fsys      fs.FS
	start     string
	recursive bool
	entries   []string
	omitted   int
	problems  []string        // folders that could not be read
	stopped   *WalkLimitError // the walk stopped at listWalkEntries
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

// visit is the walk's function: the workspace's os.Root is under it and
// Walk follows no link, so it cannot wander out of the workspace even if a
// folder is swapped for a link while it runs. Without recursive, the
// folders below the one listed are listed, not entered; .git never is.
func (l *listing) visit(name string, d fs.DirEntry, err error) error {
	switch {
	case err != nil:
		// An unreadable folder is reported in the listing, not fatal.
		l.problem(name, err)
		return nil
	case name == l.start:
		return nil
	case d.IsDir() && d.Name() == ".git":
		return fs.SkipDir
	}
	l.add(name, d.IsDir())
	if d.IsDir() && !l.recursive {
		return fs.SkipDir
	}
	return nil
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
	switch {
	case l.stopped != nil:
		fmt.Fprintf(&b, "\n[... more entries not shown: the folder holds %s; glassbox stopped reading there (it shows %d); list a sub-folder to see them ...]", l.stopped, maxListEntries)
	case l.omitted > 0:
		fmt.Fprintf(&b, "\n[... %d more entries not shown (the limit is %d); list a sub-folder to see them ...]", l.omitted, maxListEntries)
	}
	return b.String()
}
