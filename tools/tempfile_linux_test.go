//go:build linux

package tools

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// killedWriterEnv, when set to a folder, turns the test binary into a
// write_file that is killed in the middle of its write (see below).
const killedWriterEnv = "GLASSBOX_TEST_KILLED_WRITER"

// TestKilledWriteLeavesNothing kills a process with SIGKILL in the middle of
// write_file's write (4 MiB written, more to come) and checks that the
// folder holds only the original file, unchanged: no temporary file, however
// the program ends. A named temporary file (os.CreateTemp, as the first
// version used) would be left behind.
func TestKilledWriteLeavesNothing(t *testing.T) {
	if dir := os.Getenv(killedWriterEnv); dir != "" {
		writeUntilKilled(dir)
		return
	}
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "data.txt"), "old content\n")

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriteLeavesNothing$")
	cmd.Env = append(os.Environ(), killedWriterEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "writing") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the writer said %q (%v), want it to report it is in the middle of the write", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "data.txt" {
			t.Errorf("the killed write left %s behind", e.Name())
		}
	}
	if got := readTestFile(t, filepath.Join(dir, "data.txt")); got != "old content\n" {
		t.Errorf("data.txt = %q after the killed write, want the old content", got)
	}
}

// writeUntilKilled replaces dir/data.txt with content that never ends: after
// 4 MiB it says "writing" on standard output and waits to be killed.
func writeUntilKilled(dir string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		panic(err)
	}
	_ = replaceFile(context.Background(), root, "data.txt", &stallingReader{left: 4 << 20}, 0o644, nil)
	panic("the write finished; it should have been killed first")
}

// stallingReader gives left bytes of "x", then announces itself and blocks.
type stallingReader struct{ left int }

func (r *stallingReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		os.Stdout.WriteString("writing\n")
		select {} // until SIGKILL
	}
	n := min(len(p), r.left)
	for i := range n {
		p[i] = 'x'
	}
	r.left -= n
	return n, nil
}
