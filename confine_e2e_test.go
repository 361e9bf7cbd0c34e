//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 28 on the built binary: one learner must not be able to hurt the
// room. Each attack is on the process itself — the folder tree it must
// walk, the /proc its commands read, the machine's processes, memory and
// disk — so each runs glassbox as a learner's room does.

// Finding 1: a command that makes a tree of empty folders. Every walk over
// the workspace (the snapshots before and after each command) counts
// folders too and stops at its limit, so glassbox's memory stays small,
// the session keeps no list of the folders, and the step says its
// changes could not be kept. With 300,000 folders, before: 590 MB RSS, a
// 15 MB session, 28.9 s. Here 100,000, made on a tmpfs where there is one
// (this machine's disk takes 27 s for them), which before took the
// session past 4 MB.
func TestFolderTreeCannotExhaustGlassbox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // a process of its own: it waits alongside the others
	bin := builtGlassbox(t)
	ws := fastTempDir(t)
	session := filepath.Join(t.TempDir(), "s.jsonl")
	// A script in the workspace: python3 -c would need a person.
	// Named to come first: the folders after it are all a walk meets.
	writeFile(t, filepath.Join(ws, "a.py"), "import os\nfor i in range(100000): os.mkdir('d%d' % i)\n")
	srv := scriptServer(t, "python3 a.py", "echo two", "echo three")
	cmd := exec.Command(bin, "run", "--live", "--yes", "--json", "--workspace", ws, "--session", session, "make folders")
	cmd.Dir = ws
	cmd.Env = liveEnv(srv, t.TempDir())
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// glassbox's own peak, not its children's (a rusage's maxrss is the
	// largest of the tree's, and other tests run theirs alongside).
	peak := make(chan int)
	stop := make(chan struct{})
	go func() { peak <- watchPeakRSS(cmd.Process.Pid, stop) }()
	err := cmd.Wait()
	close(stop)
	rss := <-peak >> 10 // MiB
	out := buf.Bytes()
	if err != nil {
		t.Fatalf("glassbox: %v\n%s", err, tail(out))
	}
	results := toolResults(t, string(out))
	if len(results) != 3 || !strings.Contains(results[0], "exit code: 0") || !strings.Contains(results[2], "three") {
		t.Fatalf("results: %q\n%s", results, tail(out))
	}
	fi, err := os.Stat(session)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak RSS %d MiB, session %d KiB", rss, fi.Size()>>10)
	if rss > 150 { // 54 MiB here; 332 MiB before (590 MB for 300,000 folders)
		t.Errorf("glassbox grew to %d MiB walking the folders", rss)
	}
	if fi.Size() > 512<<10 {
		t.Errorf("the session file is %d KiB: a step recorded the folders", fi.Size()>>10)
	}
	b, _ := os.ReadFile(session)
	if !strings.Contains(string(b), "more than 5,000 entries (files, folders, links and every other entry count)") {
		t.Errorf("the session does not say why the step's changes were not kept")
	}
}

// watchPeakRSS reads the peak resident size (VmHWM, KiB) of process pid
// from /proc every 20 ms until stop is closed or the process is gone, and
// returns the last it read.
func watchPeakRSS(pid int, stop <-chan struct{}) int {
	peak := 0
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					var kb int
					fmt.Sscan(v, &kb)
					peak = max(peak, kb)
				}
			}
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// fastTempDir is a temporary folder on a tmpfs (/dev/shm) where there is
// one, else t.TempDir.
func fastTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "glassbox-test-*")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// runLiveIn runs the built binary live with --yes and a JSON trace, in and
// on the workspace ws, against srv (scriptServer), and returns the
// command, its output and the tool results; it fails the test unless
// glassbox ends well.
func runLiveIn(t *testing.T, bin, ws string, srv *httptest.Server, args ...string) (*exec.Cmd, []byte, []string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--live", "--yes", "--json", "--workspace", ws}, args...)...)
	cmd.Dir = ws
	cmd.Env = liveEnv(srv, t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("glassbox: %v\n%s", err, tail(out))
	}
	return cmd, out, toolResults(t, string(out))
}

// writeFile writes a file or fails the test.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tail is the end of a long output, for a failure message.
func tail(b []byte) string {
	if len(b) > 4000 {
		return "…" + string(b[len(b)-4000:])
	}
	return string(b)
}

// Finding 2: a learner's command reads /proc while another learner's
// command runs with a password on its command line: it reads neither that
// command line nor the helpers' jobs (which are no longer in any argv) nor
// the mountinfo or status of processes outside its own namespace.
func TestCommandsSeeOnlyTheirOwnProcessesOnTheBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // a process of its own: it waits alongside the others
	bin := builtGlassbox(t)
	marker := fmt.Sprintf("hunter2-%d", time.Now().UnixNano())
	victim := exec.Command(bin, "run", "--live", "--yes", "--json", "victim")
	victim.Dir = t.TempDir()
	victim.Env = liveEnv(scriptServer(t, "export DB_PASSWORD="+marker+"; sleep 6; echo $DB_PASSWORD"), t.TempDir())
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for len(hostCommandLines(marker)) == 0 {
		if time.Now().After(deadline) {
			victim.Process.Kill()
			t.Fatal("the victim's command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, line := range hostCommandLines("__sandbox-exec") {
		if strings.Contains(line, "{") {
			t.Errorf("a helper carries its job in its arguments: %q", line)
		}
	}
	ws := t.TempDir()
	spy := exec.Command(bin, "run", "--live", "--yes", "--json", "--workspace", ws, "spy")
	spy.Dir = ws
	spy.Env = liveEnv(scriptServer(t, `cat /proc/[0-9]*/cmdline | tr '\0' ' '; echo; cat /proc/[0-9]*/mountinfo /proc/[0-9]*/status | grep -c . ; ls -d /proc/[0-9]* | wc -l`), t.TempDir())
	out, err := spy.CombinedOutput()
	if err != nil {
		t.Fatalf("glassbox: %v\n%s", err, tail(out))
	}
	results := toolResults(t, string(out))
	if len(results) != 1 {
		t.Fatalf("results: %q", results)
	}
	if strings.Contains(results[0], marker) {
		t.Errorf("a command read another run's command line:\n%s", results[0])
	}
	if strings.Contains(results[0], `"workspace"`) {
		t.Errorf("a command read a helper's job:\n%s", results[0])
	}
	if !strings.Contains(results[0], "they see only their own processes") {
		t.Errorf("the sandbox line does not say so:\n%s", results[0])
	}
}

// hostCommandLines are the command lines of the machine's processes that
// hold s (a test binary's own aside).
func hostCommandLines(s string) []string {
	var out []string
	for _, p := range hostProcesses(s) {
		if b, err := os.ReadFile(filepath.Join(p, "cmdline")); err == nil && !strings.Contains(string(b), "-test.") {
			out = append(out, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// hostProcesses are the /proc folders of the machine's processes whose
// command line holds s.
func hostProcesses(s string) []string {
	var out []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), s) {
			out = append(out, filepath.Dir(f))
		}
	}
	return out
}

// Finding 3: one approved command forks 400 processes, touches 2 GiB and
// writes a 1 GiB file. Each stops at its limit, the model reads which, and
// the run's header and every result name the limits in force.
func TestLimitsStopCommandsOnTheBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // a process of its own: it waits alongside the others
	bin := builtGlassbox(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "memory.py"), "b = b'x' * (2 << 30)\nprint(len(b))\n")
	srv := scriptServer(t,
		`for i in $(seq 400); do sleep 3 & done; wait; echo forked`,
		`python3 memory.py`,
		`head -c 1G /dev/zero > big; ls -l big`)
	_, out, results := runLiveIn(t, bin, ws, srv, "take the machine")
	if len(results) != 3 {
		t.Fatalf("results: %q\n%s", results, out)
	}
	for i, want := range []string{
		"reached the process limit (256 processes and threads at once)",
		"reached the memory limit (1 GiB)",
		"reached the file size limit (256 MiB a file)",
	} {
		if !strings.Contains(results[i], want) {
			t.Errorf("result %d does not name the limit (%s):\n%s", i+1, want, results[i])
		}
		if !strings.Contains(results[i], "limits: 256 processes (cgroup v") || !strings.Contains(results[i], "1 GiB of memory (cgroup v") {
			t.Errorf("result %d's sandbox line does not name the limits:\n%s", i+1, results[i])
		}
	}
	if fi, err := os.Stat(filepath.Join(ws, "big")); err != nil || fi.Size() > 256<<20 {
		t.Errorf("the file: %v %v", fi.Size(), err)
	}
}

// Finding 4: a .env at the top of the workspace that glassbox did not take
// its own settings from (.env.local, .env.production) is still read by
// glassbox, to mask its secrets; masking catches a value as it is and in
// the encodings it knows, not reversed, rot13'd or split. So commands find
// every .env* glassbox read empty, whatever they do with it.
func TestEveryDotEnvGlassboxReadIsConcealed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // a process of its own: it waits alongside the others
	bin := builtGlassbox(t)
	ws := t.TempDir()
	secret := "Sw0rdf1sh-4713-correct-horse"
	writeFile(t, filepath.Join(ws, ".env.local"), "DB_PASSWORD="+secret+"\n")
	writeFile(t, filepath.Join(ws, ".env.production"), "STRIPE_KEY=sk_live_4713abcdefghijklmnop\n")
	srv := scriptServer(t, `rev .env.local; tr 'A-Za-z' 'N-ZA-Mn-za-m' < .env.local; cut -c1-16 .env.production; wc -c .env.local .env.production`)
	cmd := exec.Command(bin, "run", "--live", "--yes", "--json", "--workspace", ws, "hi")
	cmd.Dir = t.TempDir()
	cmd.Env = liveEnv(srv, t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("glassbox: %v\n%s", err, tail(out))
	}
	results := toolResults(t, string(out))
	if len(results) != 1 || !strings.Contains(results[0], "0 total") {
		t.Fatalf("the command found the files not empty:\n%q", results)
	}
	for _, piece := range []string{"hsifdr0wS", "Fj0eqs1fu", "sk_live_4713", "Sw0rd"} {
		if strings.Contains(string(out), piece) {
			t.Errorf("%q reached the trace", piece)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".env.local")); string(b) != "DB_PASSWORD="+secret+"\n" {
		t.Errorf(".env.local changed: %q", b)
	}
}
