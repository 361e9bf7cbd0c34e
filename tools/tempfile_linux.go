//go:build linux

package tools

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a new file in dir that has no name (O_TMPFILE): if the
// program dies before linkUnnamed names it, the kernel simply frees it, so
// an interrupted write_file leaves no temporary file behind. It fails, and
// the caller falls back to a named temporary file, where the file system
// does not support O_TMPFILE or /proc (which linkUnnamed needs) is missing.
func openUnnamed(dir *os.Root) (*os.File, error) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, err
	}
	return dir.OpenFile(".", unix.O_TMPFILE|os.O_WRONLY, 0o600)
}

// linkUnnamed gives the file f, opened by openUnnamed, the name name in dir.
// Both are descriptors, so no path is looked up that a racing process could
// change.
func linkUnnamed(dir *os.Root, f *os.File, name string) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	self := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if err := unix.Linkat(unix.AT_FDCWD, self, int(d.Fd()), name, unix.AT_SYMLINK_FOLLOW); err != nil {
		return &os.LinkError{Op: "link", Old: self, New: name, Err: err}
	}
	return nil
}
