//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileKeepsOwner: the new file that replaces an existing one gets
// the old one's owner and group (where the system allows; as root, always).
func TestWriteFileKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	ws := newTestWorkspace(t, map[string]string{"theirs.txt": "x"})
	path := filepath.Join(ws.Root(), "theirs.txt")
	if err := os.Chown(path, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	if res := run(t, NewWriteFile(ws), `{"path":"theirs.txt","content":"y"}`); res.IsError {
		t.Fatalf("Run: %s", res.Content)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := info.Sys().(*syscall.Stat_t)
	if st.Uid != 1234 || st.Gid != 5678 {
		t.Errorf("owner after the write = %d:%d, want 1234:5678", st.Uid, st.Gid)
	}
}
