package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// ErrOutsideWorkspace is wrapped by every error Resolve returns for a path
// that leaves the workspace, whether through "..", an absolute path or a
// symbolic link. Test for it with errors.Is.
var ErrOutsideWorkspace = errors.New("outside the workspace")

// ErrInvalidPath is wrapped by every error Resolve returns for a path that no
// file can have: one holding a NUL character, or a name or a whole path longer
// than file systems allow. Such a path is not outside the workspace; it is
// simply not a path, and the message says why.
var ErrInvalidPath = errors.New("not a usable path")

const (
	// maxNameBytes is the longest file or folder name Linux and macOS
	// file systems accept (NAME_MAX).
	maxNameBytes = 255
	// maxPathBytes is the longest path the kernel accepts (PATH_MAX, less
	// the terminating NUL).
	maxPathBytes = 4095
)

// Workspace is the one folder the tools may touch: the sandbox. Every path a
// model sends goes through Resolve, which answers with a real absolute path
// inside the folder or with an error; that answer is what the security layer
// judges and what messages show.
//
// The tools then do every read, write, rename, listing and stat through dir,
// an os.Root opened on the folder. Resolve and the operation are two steps,
// and a process racing them (swapping a file for a symbolic link to outside
// in between) could otherwise win; os.Root walks the path one component at a
// time from the folder's own descriptor and refuses any symbolic link that
// leads out, so the operation itself cannot leave the folder, whatever
// happens to the path meanwhile.
//
// A Workspace is read-only after NewWorkspace, so it is safe for concurrent
// use.
type Workspace struct {
	root  string   // absolute, with every symbolic link resolved
	dir   *os.Root // the folder itself, held open by its descriptor
	quota quotaHolder
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
	dir, err := os.OpenRoot(resolved)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", root, err)
	}
	return &Workspace{root: resolved, dir: dir}, nil
}

// Close releases the workspace folder's descriptor. The tools must not be
// used after it. A workspace that lives as long as the program need not be
// closed.
func (w *Workspace) Close() error { return w.dir.Close() }

// Root is the workspace folder as an absolute path with symbolic links
// resolved.
func (w *Workspace) Root() string { return w.root }

// Resolve turns a path from a tool call into the absolute path the tool
// should use. Relative paths are relative to the workspace root; an empty
// path means the root itself. ".." and symbolic links are resolved first, so
// the answer is where the file really is (or would be, for a file that does
// not exist yet), and anything that lands outside the workspace is an error
// wrapping ErrOutsideWorkspace.
//
// A path no file can have (a NUL character, a name over 255 bytes, a path
// over 4095 bytes) is an error wrapping ErrInvalidPath that says which.
func (w *Workspace) Resolve(path string) (string, error) {
	if err := checkPath(path); err != nil {
		return "", err
	}
	joined := path
	if !filepath.IsAbs(joined) {
		joined = filepath.Join(w.root, joined)
	}
	joined = filepath.Clean(joined)

	real, err := resolveSymlinks(joined)
	if errors.Is(err, syscall.ENAMETOOLONG) {
		return "", invalidPath(path, "the path is longer than the file system allows")
	}
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
//
// A path that is not a path at all (ErrInvalidPath) counts as inside: it
// leads nowhere, and the tool's own message says what is wrong with it
// instead of a misleading "outside the workspace".
func (w *Workspace) Inside(path string) bool {
	_, err := w.Resolve(path)
	return err == nil || errors.Is(err, ErrInvalidPath)
}

// target is a path from a tool call, resolved and checked, in the two forms
// the tools need.
type target struct {
	name  string // relative to the root in the OS's form, for w.dir ("notes/todo.txt"; "." is the root)
	shown string // for messages and listings: slash-separated, bidi controls escaped
}

// target resolves a path from a tool call (see Resolve) into the name the
// tools hand to w.dir.
func (w *Workspace) target(path string) (target, error) {
	abs, err := w.Resolve(path)
	if err != nil {
		return target{}, err
	}
	name, err := filepath.Rel(w.root, abs)
	if err != nil { // unreachable: Resolve only answers paths below the root
		return target{}, fmt.Errorf("path %q: %w", path, err)
	}
	return target{name: name, shown: EscapeBidi(filepath.ToSlash(name))}, nil
}

// checkPath refuses what no file system accepts, before anything looks at
// the disk, so the message names the real problem.
func checkPath(path string) error {
	if strings.IndexByte(path, 0) >= 0 {
		return invalidPath(path, "it contains a NUL character (\\x00), which no file or folder name can hold")
	}
	if len(path) > maxPathBytes {
		return invalidPath(path, fmt.Sprintf("it is %d bytes long; a path may be at most %d bytes", len(path), maxPathBytes))
	}
	for name := range strings.SplitSeq(filepath.ToSlash(path), "/") {
		if len(name) > maxNameBytes {
			return invalidPath(path, fmt.Sprintf("the name %s is %d bytes long; a file or folder name may be at most %d bytes",
				shorten(name), len(name), maxNameBytes))
		}
	}
	return nil
}

// invalidPathError is a path no file can have, with the reason.
type invalidPathError struct{ path, why string }

func invalidPath(path, why string) error { return &invalidPathError{path: path, why: why} }

func (e *invalidPathError) Error() string {
	return fmt.Sprintf("path %s is not usable: %s", shorten(e.path), e.why)
}

func (e *invalidPathError) Is(target error) bool { return target == ErrInvalidPath }

// shorten quotes s for a message, cut after its first 40 bytes (at a
// character boundary), so a 5,000-byte name does not fill the screen.
func shorten(s string) string {
	const keep = 40
	if len(s) <= keep {
		return strconv.Quote(s)
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
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
