//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// commandServer plays Gemini answering every request with one
// execute_command call.
func commandServer(t *testing.T, command string) *httptest.Server {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"command": command})
	body := fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"execute_command","args":%s}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15}}`, args)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeGeminiReply(w, r, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Issue 12 item 4: SIGTERM and SIGHUP (a closed terminal) end a headless
// run like Ctrl-C: every process the command started is stopped (setsid
// included), the trace ends with an interrupted record, and the temporary
// workspace and the command's temporary folder are removed. Measured on the
// built binary, counting processes.
func TestSignalsStopChildrenAndCleanUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildGlassbox(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			marker := fmt.Sprintf("30%d.%d", int(sig), time.Now().UnixNano()%1000000)
			srv := commandServer(t, "sleep "+marker+" & sleep "+marker+" & setsid sleep "+marker+" >/dev/null 2>&1 & sleep "+marker)
			tmp := t.TempDir()
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			cmd := exec.Command(bin, "run", "--live", "--yes", "--json", "--trace", trace, "hi")
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GEMINI_API_KEY="+testKey, "GOOGLE_GEMINI_BASE_URL="+srv.URL, "GOOGLE_API_KEY=")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for countProcesses(marker) < 4 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the command's processes never started (%d); stderr: %s", countProcesses(marker), stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			signalAndWait(t, cmd, cmd.Process.Pid, sig)
			if n := countProcesses(marker); n != 0 {
				t.Fatalf("after %s, %d of the command's processes still run", sig, n)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
				t.Fatalf("after %s, temporary files are left: %v", sig, left)
			}
			last := lastLine(t, trace)
			var rec struct {
				Interrupted *struct{ State, Cause string } `json:"interrupted"`
			}
			if err := json.Unmarshal([]byte(last), &rec); err != nil || rec.Interrupted == nil || rec.Interrupted.Cause == "" {
				t.Fatalf("after %s the trace's last line is not an interrupted record: %s", sig, last)
			}
			if !strings.Contains(stderr.String(), "interrupted in ") {
				t.Fatalf("stderr does not say where the run stopped: %s", stderr.String())
			}
		})
	}
}

// signalAndWait sends sig to pid and waits (up to 20 s) for cmd to end.
func signalAndWait(t *testing.T, cmd *exec.Cmd, pid int, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("glassbox did not end after %s", sig)
	}
}

func lastLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		last = sc.Text()
	}
	return last
}

// countProcesses counts the live processes running `sleep S`.
func countProcesses(s string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.HasPrefix(string(b), "sleep\x00"+s+"\x00") {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i >= 0 && i+2 < len(st) && (st[i+2] == 'Z' || st[i+2] == 'X') {
				continue
			}
		}
		n++
	}
	return n
}

// Issue 12 item 6: a command reading its parent's and grandparent's
// environment block (the sandbox helper's and glassbox's) finds no secret,
// and neither does anyone reading glassbox's /proc/PID/environ; the keys
// still reach the provider.
func TestCommandsCannotReadSecretsFromEnviron(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildGlassbox(t)
	const (
		github = "ghp_SECRETgithubTOKEN0123456789"
		aws    = "AWSsecretACCESSkey0123456789xyz"
	)
	command := `P=$(awk '/^PPid/{print $2}' /proc/$PPID/status); cat /proc/$PPID/environ /proc/$P/environ 2>&1 | tr '\0' '\n' > env.txt; echo done >> env.txt; sleep 30`
	srv := commandServer(t, command)
	ws := t.TempDir()
	cmd := exec.Command(bin, "run", "--live", "--yes", "--json", "--workspace", ws, "hi")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "GEMINI_API_KEY="+testKey, "GOOGLE_GEMINI_BASE_URL="+srv.URL,
		"GOOGLE_API_KEY=", "GITHUB_TOKEN="+github, "AWS_SECRET_ACCESS_KEY="+aws)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	envFile := filepath.Join(ws, "env.txt")
	deadline := time.Now().Add(20 * time.Second)
	for {
		// Under the sandbox the kernel refuses the read outright (the
		// helper and glassbox are outside the command's Landlock domain);
		// the blocks are read below from outside, as anyone could.
		if b, err := os.ReadFile(envFile); err == nil && strings.Contains(string(b), "done") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command never wrote env.txt; stderr: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	seen, _ := os.ReadFile(envFile)
	own, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	// The helper's block too: every child of glassbox.
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		status, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil || !strings.Contains(string(status), fmt.Sprintf("\nPPid:\t%d\n", cmd.Process.Pid)) {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil {
			own = append(own, b...)
		}
	}
	if !strings.Contains(string(own), "PATH=") {
		t.Fatalf("read no environment block from outside: %q", own)
	}
	for _, secret := range []string{testKey, github, aws} {
		if strings.Contains(string(seen), secret) {
			t.Errorf("a command read %q from its parents' environ", secret[:8])
		}
		if strings.Contains(string(own), secret) {
			t.Errorf("glassbox's own /proc/PID/environ holds %q", secret[:8])
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if !strings.Contains(stdout.String(), `"backend":"live"`) {
		t.Fatalf("the run never reached the provider with its key: %s\n%s", stdout.String(), stderr.String())
	}
}

// Issue 12 item 9: --replay refuses a device, a named pipe (at once, not
// hanging) and an oversized file, naming the cap, with exit code 2.
func TestReplayInputIsCapped(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.cassette")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.cassette")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(300 << 20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	for path, want := range map[string]string{
		"/dev/zero": "not a regular file (it is a character device)",
		fifo:        "not a regular file (it is a named pipe)",
		huge:        "over the 256 MiB a cassette may hold",
	} {
		code, _, stderr := runJSON(t, "", "--replay", path, "hi")
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("--replay %s: exit %d, stderr %q; want 2 and %q", path, code, stderr, want)
		}
	}
}

// The full-screen glass box ends the same way on SIGHUP (its terminal
// closed), SIGTERM and SIGINT: the trace ends with an interrupted record and
// no temporary file is left. script(1) gives it a terminal.
func TestTUISignalsCleanUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	scriptPath, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is needed to give the TUI a terminal")
	}
	bin := buildGlassbox(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp, state := t.TempDir(), t.TempDir()
			trace := filepath.Join(t.TempDir(), "t.jsonl")
			cmd := exec.Command(scriptPath, "-qfc", bin+" --offline --trace "+trace, filepath.Join(t.TempDir(), "typescript"))
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_STATE_HOME="+state, "GEMINI_API_KEY=", "GOOGLE_API_KEY=")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// glassbox is in the UI once the UI has opened its log.
			var pid int
			deadline := time.Now().Add(30 * time.Second)
			for pid == 0 {
				if _, err := os.Stat(filepath.Join(state, "glassbox", "glassbox.log")); err == nil {
					pid = findProcess(bin)
				}
				if time.Now().After(deadline) {
					t.Fatal("the TUI never started")
				}
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond) // past start-up, into the UI
			signalAndWait(t, cmd, pid, sig)
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
				t.Fatalf("after %s, left behind: %v", sig, left)
			}
			if last := lastLine(t, trace); !strings.Contains(last, `"interrupted"`) || !strings.Contains(last, "signal received") {
				t.Fatalf("after %s the trace ends with %s", sig, last)
			}
		})
	}
}

// findProcess is the pid of the process whose first argument is path.
func findProcess(path string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(b), path+"\x00") {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			return pid
		}
	}
	return 0
}
