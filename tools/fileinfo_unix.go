//go:build unix

package tools

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of old, where the system allows it
// (always for root; for anyone else only when nothing changes, so a refusal
// is ignored).
func keepOwner(f *os.File, old fs.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}

// linkCount is how many hard links (names) the file described by info has.
func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
