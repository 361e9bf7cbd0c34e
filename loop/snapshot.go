package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/tools"
)

// Workspace snapshots: before and after each step that runs a tool whose
// attributes say it may change files (write_file, execute_command, a tool
// of an MCP server), the workspace's files are hashed and their contents kept
// (once each) in the session's blob store, so a fork can put back the files
// as they were. Small workspaces are the norm; past these limits a step's
// changes are not kept and a fork across it says the workspace cannot be
// restored. Every entry counts — files, folders, links, FIFOs, sockets — so
// a tree of empty folders costs no more than a tree of files
// (tools.Walk), and what one step records is bounded by them.
const (
	SnapshotMaxEntries = 5000
	SnapshotMaxBytes   = 64 << 20
)

// mayChangeFiles reports whether a call to the named tool can change the
// workspace: what the tool's attributes say (history.Attributes), never
// its name. A tool the registry does not know is assumed to.
func (e *Engine) mayChangeFiles(tool string) bool {
	t, ok := e.cfg.Tools.Get(tool)
	return !ok || t.Spec().Attrs.ChangesFiles
}

// manifest is a workspace's regular files and folders: slash path →
// content and mode (a folder has Dir set and no hash).
type manifest map[string]manifestEntry

type manifestEntry struct {
	Hash string      `json:"hash,omitempty"`
	Mode fs.FileMode `json:"mode"`
	Dir  bool        `json:"dir,omitempty"`
}

// dirMark stands for a folder in a FileChange's Before or After.
const dirMark = "dir"

// errSnapshotTooLarge is a workspace past SnapshotMaxEntries or SnapshotMaxBytes.
var errSnapshotTooLarge = errors.New("the workspace is too large to keep copies of")

// snapshotLimits bound one scan of the workspace.
var snapshotLimits = tools.WalkLimits{Entries: SnapshotMaxEntries, Bytes: SnapshotMaxBytes}

// scanWorkspace hashes every regular file under root and stores each
// content in blobs, through an os.Root so nothing outside is read.
// Symbolic links and special files are counted, not followed or kept.
func scanWorkspace(root string, blobs *session.Blobs) (manifest, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s := scan{fsys: r.FS(), blobs: blobs, m: manifest{}}
	_, err = tools.Walk(context.Background(), s.fsys, ".", snapshotLimits, s.add)
	if errors.Is(err, tools.ErrWalkLimit) {
		return nil, fmt.Errorf("%w: %v", errSnapshotTooLarge, err)
	}
	if err != nil {
		return nil, err
	}
	return s.m, nil
}

// scan is one scan of a workspace under way.
type scan struct {
	fsys  fs.FS
	blobs *session.Blobs
	m     manifest
	read  int64 // bytes read so far
}

// add records one entry of the walk: a folder, or a regular file's
// content and mode.
func (s *scan) add(name string, d fs.DirEntry, err error) error {
	switch {
	case err != nil:
		return err
	case name == ".":
		return nil
	case d.IsDir():
		s.m[name] = manifestEntry{Dir: true, Mode: fs.ModeDir | 0o755}
		return nil
	case !d.Type().IsRegular():
		return nil
	}
	info, err := d.Info()
	if err != nil {
		return err
	}
	data, err := s.readFile(name)
	if err != nil {
		return err
	}
	h, err := s.blobs.Put(data)
	if err != nil {
		return err
	}
	s.m[name] = manifestEntry{Hash: h, Mode: info.Mode().Perm()}
	return nil
}

// readFile reads a file within what the scan may still read: a file that
// grew since the walk counted it cannot take the scan past its limit.
func (s *scan) readFile(name string) ([]byte, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	left := SnapshotMaxBytes - s.read
	data, err := io.ReadAll(io.LimitReader(f, left+1))
	if err != nil {
		return nil, err
	}
	if s.read += int64(len(data)); s.read > SnapshotMaxBytes {
		return nil, fmt.Errorf("%w: more than %d MiB in files", errSnapshotTooLarge, SnapshotMaxBytes>>20)
	}
	return data, nil
}

// diffManifests lists the files that differ between two scans.
func diffManifests(before, after manifest) []session.FileChange {
	var out []session.FileChange
	hash := func(e manifestEntry) string {
		if e.Dir {
			return dirMark
		}
		return e.Hash
	}
	for p, b := range before {
		if a, ok := after[p]; !ok || a != b {
			out = append(out, session.FileChange{Path: p, Before: hash(b), After: hash(a), Mode: uint32(b.Mode.Perm()), Dir: b.Dir || a.Dir})
		}
	}
	for p, a := range after {
		if _, ok := before[p]; !ok {
			out = append(out, session.FileChange{Path: p, After: hash(a), Dir: a.Dir})
		}
	}
	slices.SortFunc(out, func(a, b session.FileChange) int {
		if a.Path < b.Path {
			return -1
		}
		if a.Path > b.Path {
			return 1
		}
		return 0
	})
	return out
}

// undoChanges puts the files back as they were before the given steps,
// latest step first. Every copy is checked before the first file is touched.
func undoChanges(root string, blobs *session.Blobs, steps []*session.Changes) error {
	for _, c := range steps {
		for _, f := range c.Files {
			if f.Before != "" && f.Before != dirMark && !blobs.Has(f.Before) {
				if blobs.Withheld(f.Before) {
					return fmt.Errorf("%s cannot be put back: %w", f.Path, session.ErrWithheld)
				}
				return fmt.Errorf("the copy of %s is missing from the session", f.Path)
			}
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	for i := len(steps) - 1; i >= 0; i-- {
		if err := undoStep(r, blobs, steps[i].Files); err != nil {
			return err
		}
	}
	return nil
}

// undoStep puts back what one step changed, in an order that also undoes
// a file turned into a folder and back: the files it created go, then the
// folders it created (deepest first; one that still holds something nobody
// recorded stays), then the folders it removed come back, then the files it
// changed or removed.
func undoStep(r *os.Root, blobs *session.Blobs, files []session.FileChange) error {
	if err := removeCreated(r, files); err != nil {
		return err
	}
	for _, f := range files {
		if f.Before == dirMark {
			if err := r.MkdirAll(filepath.FromSlash(f.Path), 0o755); err != nil {
				return fmt.Errorf("restoring the folder %s: %w", f.Path, err)
			}
		}
	}
	for _, f := range files {
		if f.Before == "" || f.Before == dirMark {
			continue
		}
		if err := restoreFile(r, blobs, f); err != nil {
			return err
		}
	}
	return nil
}

// removeCreated removes what a step created: its files, then its folders,
// deepest first (one that still holds something nobody recorded stays).
func removeCreated(r *os.Root, files []session.FileChange) error {
	var createdDirs []string
	for _, f := range files {
		name := filepath.FromSlash(f.Path)
		switch {
		case f.After == dirMark:
			createdDirs = append(createdDirs, name)
		case f.Before == "" || f.Before == dirMark:
			if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing %s: %w", f.Path, err)
			}
		}
	}
	slices.SortFunc(createdDirs, func(a, b string) int { return len(b) - len(a) })
	for _, d := range createdDirs {
		_ = r.Remove(d) // only when empty
	}
	return nil
}

// restoreFile writes back a file a step changed or removed, from its copy
// in blobs, with its mode.
func restoreFile(r *os.Root, blobs *session.Blobs, f session.FileChange) error {
	name := filepath.FromSlash(f.Path)
	data, err := blobs.Get(f.Before)
	if err != nil {
		return err
	}
	if dir := path.Dir(f.Path); dir != "." {
		if err := r.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return fmt.Errorf("restoring %s: %w", f.Path, err)
		}
	}
	mode := fs.FileMode(f.Mode)
	if mode == 0 {
		mode = 0o644
	}
	_ = r.Chmod(name, 0o600) // a read-only file now may have been writable then
	if err := r.WriteFile(name, data, mode); err != nil {
		return fmt.Errorf("restoring %s: %w", f.Path, err)
	}
	if err := r.Chmod(name, mode); err != nil {
		return fmt.Errorf("restoring %s: %w", f.Path, err)
	}
	return nil
}

func encodeManifest(m manifest) ([]byte, error) { return json.Marshal(m) }

func decodeManifest(data []byte) (manifest, error) {
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: a workspace manifest is not JSON: %v", session.ErrCorrupt, err)
	}
	return m, nil
}
