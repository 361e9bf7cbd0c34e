//go:build unix

package loop

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadPolicyLimits: a policy path that is not a small regular file gets
// a clear error at once: a named pipe does not hang, /dev/zero does not eat
// memory, and an oversized file names the 1 MiB cap.
func TestLoadPolicyLimits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "policy.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("cannot make a named pipe: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte(strings.Repeat("# padding\n", 200_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok.toml")
	if err := os.WriteFile(ok, []byte(DefaultPolicyTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, want string }{
		{"named pipe", fifo, "policy file " + fifo + " is not a regular file (it is a named pipe); give the path of a TOML file"},
		{"/dev/zero", "/dev/zero", "policy file /dev/zero is not a regular file (it is a character device)"},
		{"folder", dir, "is not a regular file (it is a folder)"},
		{"2 MB file", big, "policy file " + big + " is 2000000 bytes; the limit is 1 MiB (1048576 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := LoadPolicy(tc.path)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("LoadPolicy(%s) error = %v, want it to contain %q", tc.path, err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("LoadPolicy(%s) still running after 10 s", tc.path)
			}
		})
	}
	if _, err := LoadPolicy(ok); err != nil {
		t.Errorf("LoadPolicy of a copy of the built-in policy: %v", err)
	}
}
