package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// The flags that name one person's files have no meaning in a room.
func TestServeRefusesOnePersonsFlags(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"serve", "--resume", "x"}, {"serve", "--workspace", "."}, {"serve", "--session", "s.jsonl"},
		{"serve", "--compare"}, {"serve", "--trace", "t.jsonl"}, {"serve", "extra"},
		{"serve", "--max-learners", "0"},
	} {
		var out, errb bytes.Buffer
		if code := realMain(context.Background(), args, nil, &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, errb.String())
		}
		if !strings.HasPrefix(errb.String(), "glassbox serve: ") {
			t.Errorf("%q: stderr %q", args, errb.String())
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `glassbox serve` prints where it listens, the passphrase and the host
// key's fingerprint; the passphrase gets a learner in; a signal stops it.
func TestServeAnnouncesAndServes(t *testing.T) {
	isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() { done <- realMain(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, nil, &out, &errb) }()
	re := regexp.MustCompile(`listening on (\S+) [\s\S]*workshop passphrase:\s+(\S+)\n[\s\S]*host key fingerprint:\s+(SHA256:\S+)\n[\s\S]*offline simulation`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; m = re.FindStringSubmatch(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no announcement; stdout %q stderr %q", out.String(), errb.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	var seen string
	c, err := gossh.Dial("tcp", m[1], &gossh.ClientConfig{User: "ada", Auth: []gossh.AuthMethod{gossh.Password(m[2])},
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error { seen = gossh.FingerprintSHA256(k); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if seen != m[3] {
		t.Fatalf("the server's key is %s, the announcement says %s", seen, m[3])
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(out.String(), "every learner's session is kept") {
		t.Fatalf("stdout %q", out.String())
	}
}

// serve --help lists only the flags a room accepts, and says how learners
// get in: a passphrase made at each start or chosen with
// GLASSBOX_PASSPHRASE, keys with --authorized-keys, and both together.
func TestServeHelpListsWhatARoomAccepts(t *testing.T) {
	isolate(t)
	for _, l := range []string{"en", "ja"} {
		var out, errb bytes.Buffer
		if code := realMain(context.Background(), []string{"serve", "--help", "--lang", l}, nil, &out, &errb); code != exitOK {
			t.Fatalf("%s: exit %d", l, code)
		}
		help := errb.String()
		for _, refused := range []string{"compare", "resume", "record", "trace", "workspace", "session", "from"} {
			if strings.Contains(help, "\n  -"+refused+" ") || strings.Contains(help, "\n  -"+refused+"\n") {
				t.Errorf("%s: serve --help lists -%s, which a room refuses", l, refused)
			}
		}
		for _, want := range []string{"  -addr", "  -provider", "  -authorized-keys", "GLASSBOX_PASSPHRASE"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s: serve --help does not say %q:\n%s", l, want, help)
			}
		}
		if l == "en" && (!strings.Contains(help, "With --authorized-keys only those keys get in and no passphrase is made") || strings.Contains(help, "unless a passphrase is also set")) {
			t.Errorf("serve --help does not tell the truth about keys and the passphrase:\n%s", help)
		}
	}
}

// An instructor chooses the passphrase with GLASSBOX_PASSPHRASE: it gets a
// learner in and the banner never prints it; one too short is refused,
// said in the chosen language.
func TestServeTakesTheInstructorsPassphrase(t *testing.T) {
	isolate(t)
	const chosen = "correct-horse-battery"
	t.Setenv("GLASSBOX_PASSPHRASE", chosen)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() { done <- realMain(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, nil, &out, &errb) }()
	re := regexp.MustCompile(`listening on (\S+) [\s\S]*workshop passphrase:\s+the one you chose \(GLASSBOX_PASSPHRASE; not shown\)`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; m = re.FindStringSubmatch(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no announcement; stdout %q stderr %q", out.String(), errb.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	c, err := gossh.Dial("tcp", m[1], &gossh.ClientConfig{User: "ada", Auth: []gossh.AuthMethod{gossh.Password(chosen)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatalf("the chosen passphrase does not get a learner in: %v", err)
	}
	c.Close()
	cancel()
	<-done
	if strings.Contains(out.String()+errb.String(), chosen) {
		t.Fatalf("the chosen passphrase was printed:\n%s", out.String())
	}

	t.Setenv("GLASSBOX_PASSPHRASE", "short")
	for lang, want := range map[string]string{"en": "GLASSBOX_PASSPHRASE is 5 characters; a workshop passphrase needs at least 8",
		"ja": "GLASSBOX_PASSPHRASE は 5 文字です"} {
		var out, errb bytes.Buffer
		if code := realMain(context.Background(), []string{"serve", "--lang", lang}, nil, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", lang, code, errb.String(), want)
		}
	}
}

// Ctrl-C at `glassbox serve` (SIGINT to the real binary) ends the room: a
// learner connected over SSH reads that the room has ended, at which step
// their session is kept and how to come back, and their connection ends
// cleanly. (Each learner's program once caught the signal itself and
// quit before the room could say why.)
func TestCtrlCAtServeTellsTheLearners(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildGlassbox(t)
	state := t.TempDir()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "GLASSBOX_PASSPHRASE=ctrl-c-room", "TMPDIR="+t.TempDir())
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	re := regexp.MustCompile(`listening on (\S+) `)
	var m []string
	for deadline := time.Now().Add(20 * time.Second); m == nil; m = re.FindStringSubmatch(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no announcement: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	c, err := gossh.Dial("tcp", m[1], &gossh.ClientConfig{User: "ada", Auth: []gossh.AuthMethod{gossh.Password("ctrl-c-room")},
		HostKeyCallback: gossh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var screen lockedBuffer
	sess.Stdout = &screen
	stdin, _ := sess.StdinPipe()
	if err := sess.RequestPty("xterm", 34, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(screen.String(), "nter: send the tour lesson"); {
		if time.Now().After(deadline) {
			t.Fatalf("no glass box: %q", screen.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	stdin.Write([]byte("\r"))
	time.Sleep(300 * time.Millisecond)
	signalAndWait(t, cmd, cmd.Process.Pid, syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the learner's session did not end cleanly: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the learner's session did not end")
	}
	for _, want := range []string{"the room has ended (the room's server was stopped).", "Your session is kept on the room's machine", "ssh -p ", "ada@127.0.0.1"} {
		if !strings.Contains(screen.String(), want) {
			t.Fatalf("the learner's terminal does not say %q:\n%q", want, tailOf(screen.String(), 600))
		}
	}
}

// tailOf is the last n bytes of s.
func tailOf(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
