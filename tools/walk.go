package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// Every walk over a workspace — snapshots, copies, listings, the quota —
// goes through Walk: a workspace is the agent's to fill, and a command that
// makes 300,000 empty folders must not make glassbox read them all, keep
// them in memory or write them into the session. Walk counts every entry
// it meets, whatever its kind (files, folders, links, FIFOs, sockets,
// devices), against its limit and stops there with a *WalkLimitError; it
// reads each folder a batch at a time, so even one folder of a million
// entries costs no more than the limit.

// WalkLimits bound one walk. Zero fields mean no bound (only for trees
// glassbox made itself).
type WalkLimits struct {
	// Entries caps the entries met, of every kind.
	Entries int
	// Bytes caps the sum of the regular files' sizes.
	Bytes int64
}

// WalkLimitError is a walk that stopped at its limit.
type WalkLimitError struct {
	Limits WalkLimits
	// Entries and Bytes are what the walk had counted when it stopped
	// (one past the limit it met).
	Entries int
	Bytes   int64
}

func (e *WalkLimitError) Error() string {
	if e.Limits.Entries > 0 && e.Entries > e.Limits.Entries {
		return fmt.Sprintf("more than %s (files, folders, links and every other entry count)", countWords(e.Limits.Entries, "entry", "entries"))
	}
	return fmt.Sprintf("more than %s in files", sizeWords(e.Limits.Bytes))
}

// ErrWalkLimit matches every *WalkLimitError with errors.Is.
var ErrWalkLimit = errors.New("a walk reached its limit")

// Is makes errors.Is(err, ErrWalkLimit) hold.
func (e *WalkLimitError) Is(target error) bool { return target == ErrWalkLimit }

// walkBatch is how many entries of a folder are read at once.
const walkBatch = 256

// Walk calls fn for root and everything below it in fsys, each folder's
// entries sorted by name and followed by its contents, as fs.WalkDir does
// (fn may return fs.SkipDir; symbolic links are not followed). Before fn
// sees an entry it is counted: past lim, Walk returns a *WalkLimitError and
// fn sees nothing more. A folder that cannot be read is given to fn with
// its error, as fs.WalkDir does; fn's error ends the walk. ctx is checked
// between entries. Walk returns what it counted.
func Walk(ctx context.Context, fsys fs.FS, root string, lim WalkLimits, fn fs.WalkDirFunc) (WalkCount, error) {
	w := walker{ctx: ctx, fsys: fsys, lim: lim, fn: fn}
	info, err := fs.Stat(fsys, root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = w.visit(root, fs.FileInfoToDirEntry(info))
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		err = nil
	}
	return w.count, err
}

// WalkCount is what a walk met: every entry below its root, and the bytes
// of the regular files among them.
type WalkCount struct {
	Entries int
	Bytes   int64
}

type walker struct {
	ctx   context.Context
	fsys  fs.FS
	lim   WalkLimits
	fn    fs.WalkDirFunc
	count WalkCount
}

// visit hands one entry to fn and, for a folder, walks what it holds.
func (w *walker) visit(name string, d fs.DirEntry) error {
	if err := w.fn(name, d, nil); err != nil || !d.IsDir() {
		if errors.Is(err, fs.SkipDir) && d.IsDir() {
			return nil
		}
		return err
	}
	entries, err := w.readDir(name)
	if err != nil {
		if errors.Is(err, ErrWalkLimit) || w.ctx.Err() != nil {
			return err
		}
		// Reported as fs.WalkDir does: fn sees the folder again with the error.
		if err := w.fn(name, d, err); err != nil && !errors.Is(err, fs.SkipDir) {
			return err
		}
		return nil
	}
	for _, e := range entries {
		err := w.visit(path.Join(name, e.Name()), e)
		if errors.Is(err, fs.SkipDir) && !e.IsDir() {
			return nil // fn skips the rest of this folder
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readDir reads a folder a batch at a time, counting each entry (and each
// regular file's size) as it comes, and returns them sorted by name.
func (w *walker) readDir(name string) ([]fs.DirEntry, error) {
	f, err := w.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	var out []fs.DirEntry
	for {
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		batch, err := dir.ReadDir(walkBatch)
		for _, e := range batch {
			if err := w.tally(name, e); err != nil {
				return nil, err
			}
		}
		out = append(out, batch...)
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// tally counts one entry against the limits.
func (w *walker) tally(dir string, e fs.DirEntry) error {
	w.count.Entries++
	if e.Type().IsRegular() {
		if info, err := e.Info(); err == nil {
			w.count.Bytes += info.Size()
		}
	}
	over := (w.lim.Entries > 0 && w.count.Entries > w.lim.Entries) || (w.lim.Bytes > 0 && w.count.Bytes > w.lim.Bytes)
	if over {
		return &WalkLimitError{Limits: w.lim, Entries: w.count.Entries, Bytes: w.count.Bytes}
	}
	return nil
}

// CopyTree copies the folder src of fsys into dst (which must exist) —
// folders, regular files with their permission bits, symbolic links as
// links — within lim: a tree past it is not copied (what was copied stays,
// for the caller to remove) and the error says which limit. Other entries
// (FIFOs, sockets, devices) are counted, not copied. It is os.CopyFS with
// limits and without following anything.
func CopyTree(ctx context.Context, dst string, fsys fs.FS, lim WalkLimits) error {
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	_, err = Walk(ctx, fsys, ".", lim, func(name string, d fs.DirEntry, err error) error {
		if err != nil || name == "." {
			return err
		}
		return copyEntry(root, fsys, name, d)
	})
	return err
}
