package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutsideWorkspace is wrapped by every error Resolve returns for a path
// that leaves the workspace, whether through "..", an absolute path or a
// symbolic link. Test for it with errors.Is.
var ErrOutsideWorkspace = errors.New("outside the workspace")

// Workspace is the one folder the tools may touch: the sandbox. Every path a
// model sends goes through Resolve, which answers with a real absolute path
// inside the folder or with an error.
//
// A Workspace is read-only after NewWorkspace, so it is safe for concurrent
// use.
type Workspace struct {
	root string // absolute, with every symbolic link resolved
}

// NewWorkspace opens the folder root as a workspace. The folder must already
// exist.
func NewWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", root, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", root, err)
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("workspace %q is a file, not a folder", root)
	}
	return &Workspace{root: resolved}, nil
}

// Root is the workspace folder as an absolute path with symbolic links
// resolved.
func (w *Workspace) Root() string { return w.root }

// Resolve turns a path from a tool call into the absolute path the tool
// should use. Relative paths are relative to the workspace root; an empty
// path means the root itself. ".." and symbolic links are resolved first, so
// the answer is where the file really is (or would be, for a file that does
// not exist yet), and anything that lands outside the workspace is an error
// wrapping ErrOutsideWorkspace.
func (w *Workspace) Resolve(path string) (string, error) {
	joined := path
	if !filepath.IsAbs(joined) {
		joined = filepath.Join(w.root, joined)
	}
	joined = filepath.Clean(joined)

	real, err := resolveSymlinks(joined)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", path, err)
	}
	if !w.contains(real) {
		// Reads as: path "../x" resolves to /tmp/x, outside the workspace /tmp/ws
		return "", fmt.Errorf("path %q resolves to %s, %w %s", path, real, ErrOutsideWorkspace, w.root)
	}
	return real, nil
}

// Inside reports whether path resolves to somewhere inside the workspace.
// It makes Workspace a loop.PathChecker, which is how the security layer
// denies a path escape before a tool ever runs.
func (w *Workspace) Inside(path string) bool {
	_, err := w.Resolve(path)
	return err == nil
}

// Rel shows an absolute path relative to the workspace root, with forward
// slashes, for messages and listings ("notes/todo.txt"). A path outside the
// workspace is returned unchanged.
func (w *Workspace) Rel(abs string) string {
	if !w.contains(abs) {
		return abs
	}
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// contains reports whether the resolved absolute path real is the root or
// below it.
func (w *Workspace) contains(real string) bool {
	rel, err := filepath.Rel(w.root, real)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// maxLinkHops bounds how many dangling symbolic links resolveSymlinks will
// follow by hand, so a strange chain of links cannot loop forever.
const maxLinkHops = 40

// resolveSymlinks is filepath.EvalSymlinks for paths that may not exist yet.
// It resolves the deepest ancestor that exists and appends the rest, so
// "newdir/new.txt" under a workspace resolves even though neither exists.
// A symbolic link whose target does not exist yet (a "dangling" link) is
// followed by hand: otherwise writing through it would create its target,
// possibly outside the workspace.
func resolveSymlinks(path string) (string, error) {
	return resolveSymlinksHops(path, 0)
}

func resolveSymlinksHops(path string, hops int) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err == nil {
		return real, nil
	}
	// ENOTDIR: a file stands where a folder is expected ("hello.py/x").
	// Nothing can exist below it, so, as for a missing path, resolve the
	// part that exists and let the tool report the real problem.
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return "", err
	}
	if info, lerr := os.Lstat(path); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
		if hops >= maxLinkHops {
			return "", fmt.Errorf("too many symbolic links")
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		return resolveSymlinksHops(filepath.Clean(target), hops+1)
	}
	parent := filepath.Dir(path)
	if parent == path { // reached the file system root
		return path, nil
	}
	realParent, err := resolveSymlinksHops(parent, hops)
	if err != nil {
		return "", err
	}
	return filepath.Join(realParent, filepath.Base(path)), nil
}
