package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
)

// room is a served room on a loopback port, for tests.
type room struct {
	t    testing.TB
	srv  *Server
	addr string
	opts Options
}

// newRoom serves a room with opts (the state folder and an offline run
// with no simulated latency filled in) until the test ends.
func newRoom(t testing.TB, opts Options) *room {
	t.Helper()
	if opts.StateDir == "" {
		state := t.TempDir()
		t.Setenv("XDG_STATE_HOME", state)
		opts.StateDir = filepath.Join(state, "glassbox")
	}
	if opts.Run.Provider == "" {
		opts.Run = agentrun.Defaults(false)
		opts.Run.Offline, opts.Run.SimLatency = true, 0
	}
	if opts.Passphrase == "" && opts.AuthorizedKeys == "" {
		opts.Passphrase = "open-sesame"
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return &room{t: t, srv: srv, addr: ln.Addr().String(), opts: srv.opts}
}

// dial connects as user with auth.
func (r *room) dial(user string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", r.addr, &gossh.ClientConfig{
		User: user, Auth: auth,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         10 * time.Second,
	})
}

// learn connects as user with the passphrase and opens a terminal.
func (r *room) learn(user string) *terminal {
	r.t.Helper()
	c, err := r.dial(user, gossh.Password(r.opts.Passphrase))
	if err != nil {
		r.t.Fatalf("%s: %v", user, err)
	}
	return openTerminal(r.t, c, 120, 34)
}

// terminal is one learner's ssh session with a PTY: what it prints is
// kept, escape sequences stripped.
type terminal struct {
	t      testing.TB
	client *gossh.Client
	sess   *gossh.Session
	in     interface{ Write([]byte) (int, error) }
	mu     sync.Mutex
	out    bytes.Buffer
	ended  chan error
	// frames, when set, hears of every write (benchmarks); out is then
	// not kept.
	frames chan struct{}
}

// openTerminal opens a w×h terminal on c; env are KEY=VALUE pairs sent
// before it, as ssh's SendEnv does.
func openTerminal(t testing.TB, c *gossh.Client, w, h int, env ...string) *terminal {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if err := sess.Setenv(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, client: c, sess: sess, in: in, ended: make(chan error, 1)}
	sess.Stdout = writerFunc(tm.write)
	sess.Stderr = writerFunc(tm.write)
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() { tm.ended <- sess.Wait() }()
	t.Cleanup(tm.close)
	return tm
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func (tm *terminal) write(b []byte) (int, error) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if tm.frames != nil {
		select {
		case tm.frames <- struct{}{}:
		default:
		}
		return len(b), nil
	}
	return tm.out.Write(b)
}

// watchFrames stops keeping the output and signals each write instead.
func (tm *terminal) watchFrames() {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.out = bytes.Buffer{}
	tm.frames = make(chan struct{}, 1)
}

// text is everything printed so far, without escape sequences.
func (tm *terminal) text() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return ansi.Strip(tm.out.String())
}

// waitFor waits until the printed text holds want.
func (tm *terminal) waitFor(want string) {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(tm.text(), want) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal never showed %q; it showed:\n%s", want, tail(tm.text(), 3000))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitEnd waits until the server ends the session.
func (tm *terminal) waitEnd() error {
	tm.t.Helper()
	select {
	case err := <-tm.ended:
		return err
	case <-time.After(15 * time.Second):
		tm.t.Fatalf("the server never ended the session; it showed:\n%s", tail(tm.text(), 3000))
		return nil
	}
}

func (tm *terminal) keys(s string) {
	tm.t.Helper()
	if _, err := tm.in.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

func (tm *terminal) close() {
	tm.sess.Close()
	tm.client.Close()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// newKey is a fresh ed25519 key pair: the signer and its authorized_keys line.
func newKey(t testing.TB) (gossh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer, string(gossh.MarshalAuthorizedKey(signer.PublicKey()))
}

func writeFile(t testing.TB, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
