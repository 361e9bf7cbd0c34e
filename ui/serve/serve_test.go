package serve

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// A learner with the passphrase gets a glass box and steps a lesson in it.
func TestPasswordLoginStepsALesson(t *testing.T) {
	r := newRoom(t, Options{})
	a := r.learn("ada")
	a.waitFor("Enter: send the tour lesson")
	a.waitFor("OFFLINE")
	a.keys("\r")
	a.waitFor("press space to take it")
	a.keys("c")
	a.waitFor("answer delivered to ui")
}

// Keyboard-interactive asks for the passphrase, as `ssh` does by default.
func TestKeyboardInteractiveLogin(t *testing.T) {
	r := newRoom(t, Options{})
	var asked []string
	c, err := r.dial("kim", gossh.KeyboardInteractive(func(_, _ string, qs []string, _ []bool) ([]string, error) {
		asked = append(asked, qs...)
		return []string{r.opts.Passphrase}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "passphrase: " {
		t.Fatalf("the server asked %q, want one passphrase prompt", asked)
	}
	openTerminal(t, c, 120, 34).waitFor("Enter: send the tour lesson")
}

func TestWrongPassphraseIsRefused(t *testing.T) {
	r := newRoom(t, Options{})
	for _, pw := range []string{"", "open-sesam", "open-sesame ", "OPEN-SESAME"} {
		if c, err := r.dial("eve", gossh.Password(pw)); err == nil {
			c.Close()
			t.Fatalf("passphrase %q got in", pw)
		}
	}
	if c, err := r.dial("eve", gossh.KeyboardInteractive(func(_, _ string, qs []string, _ []bool) ([]string, error) {
		return []string{"guess"}, nil
	})); err == nil {
		c.Close()
		t.Fatal("a wrong keyboard-interactive answer got in")
	}
}

// With --authorized-keys, a listed key gets in and an unknown key does not;
// without a passphrase of its own, no password gets in either.
func TestAuthorizedKeys(t *testing.T) {
	known, line := newKey(t)
	unknown, _ := newKey(t)
	keys := writeFile(t, filepath.Join(t.TempDir(), "authorized_keys"), "# the room\n"+line)
	r := newRoom(t, Options{AuthorizedKeys: keys})
	if r.srv.Passphrase() != "" {
		t.Fatalf("a keys-only room has the passphrase %q", r.srv.Passphrase())
	}
	c, err := r.dial("anyone", gossh.PublicKeys(known))
	if err != nil {
		t.Fatalf("the listed key: %v", err)
	}
	openTerminal(t, c, 120, 34).waitFor("Enter: send the tour lesson")
	if c, err := r.dial("anyone", gossh.PublicKeys(unknown)); err == nil {
		c.Close()
		t.Fatal("an unknown key got in")
	}
	if c, err := r.dial("anyone", gossh.Password("")); err == nil {
		c.Close()
		t.Fatal("an empty password got into a keys-only room")
	}
}

func TestBadAuthorizedKeysFile(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"empty": "\n", "garbage": "ssh-ed25519 not-base64!\n"} {
		_, err := New(Options{StateDir: dir, AuthorizedKeys: writeFile(t, filepath.Join(dir, name), text)})
		if err == nil || !strings.Contains(err.Error(), "--authorized-keys") {
			t.Errorf("%s: err = %v, want a message naming --authorized-keys", name, err)
		}
	}
}

// Only a shell gets anything: a command, a subsystem (SFTP), a port
// forward either way and agent forwarding are refused.
func TestOnlyAShell(t *testing.T) {
	r := newRoom(t, Options{})
	c, err := r.dial("mal", gossh.Password(r.opts.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	s, _ := c.NewSession()
	if out, err := s.CombinedOutput("cat /etc/passwd"); err == nil {
		t.Fatalf("exec ran: %q", out)
	}
	s, _ = c.NewSession()
	if err := s.RequestSubsystem("sftp"); err == nil {
		t.Fatal("the sftp subsystem was granted")
	}
	s, _ = c.NewSession()
	if err := agent.RequestAgentForwarding(s); err == nil {
		t.Fatal("agent forwarding was granted")
	}
	if ok, err := s.SendRequest("x11-req", true, gossh.Marshal(struct {
		Single        bool
		Proto, Cookie string
		Screen        uint32
	}{false, "MIT-MAGIC-COOKIE-1", "00", 0})); err != nil || ok {
		t.Fatalf("x11 forwarding: ok=%v err=%v", ok, err)
	}
	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if conn, err := c.Dial("tcp", target.Addr().String()); err == nil {
		conn.Close()
		t.Fatal("a local port forward (-L) was opened")
	}
	if ln, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
		t.Fatal("a remote port forward (-R) was opened")
	}
	// And after all that, the shell still works.
	openTerminal(t, c, 120, 34).waitFor("Enter: send the tour lesson")
}

// A session without a terminal is told why and ends.
func TestNoTerminal(t *testing.T) {
	r := newRoom(t, Options{})
	c, err := r.dial("pat", gossh.Password(r.opts.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, _ := c.NewSession()
	var out strings.Builder
	s.Stdout, s.Stderr = &out, &out
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err == nil || !strings.Contains(out.String(), "needs a terminal") {
		t.Fatalf("err = %v, output %q", err, out.String())
	}
}

// The learner over the room's limit is told why and the connection ends;
// when someone leaves, the next one gets in.
func TestRoomFull(t *testing.T) {
	r := newRoom(t, Options{MaxLearners: 2})
	a, b := r.learn("a"), r.learn("b")
	a.waitFor("Enter: send the tour lesson")
	b.waitFor("Enter: send the tour lesson")
	third := r.learn("c")
	third.waitFor("the room is full (2 learners connected, the limit)")
	if err := third.waitEnd(); err == nil {
		t.Fatal("the session of the learner over the limit ended with success")
	}
	a.close()
	waitUntil(t, "a's place freed", func() bool { return r.srv.Learners() == 1 })
	r.learn("c").waitFor("Enter: send the tour lesson")
}

// One learner, one glass box: the same name connecting twice at once is
// refused (two programs would write one session).
func TestSameLearnerTwiceAtOnce(t *testing.T) {
	r := newRoom(t, Options{})
	r.learn("ada").waitFor("Enter: send the tour lesson")
	again := r.learn("ada")
	again.waitFor("you are already connected from another terminal")
	again.waitEnd()
}

func TestPasteOverTheLimit(t *testing.T) {
	r := newRoom(t, Options{MaxPaste: 16})
	a := r.learn("ada")
	a.waitFor("Enter: send the tour lesson")
	big := strings.Repeat("x", 40)
	a.keys("\x1b[200~" + big + "\x1b[201~")
	a.waitFor("paste refused: 40 bytes, over the room's limit of 16")
	a.keys("\x1b[200~small paste\x1b[201~")
	a.waitFor("small paste")
	if strings.Contains(a.text(), big) {
		t.Fatal("the refused paste reached the input")
	}
}

func TestIdleLearnerIsDisconnected(t *testing.T) {
	r := newRoom(t, Options{Idle: 300 * time.Millisecond})
	a := r.learn("ada")
	a.waitFor("disconnected after 300ms without a key; your session is kept")
	a.waitEnd()
}

func TestTerminalLargerThanTheFrame(t *testing.T) {
	r := newRoom(t, Options{MaxWidth: 150, MaxHeight: 40})
	c, err := r.dial("wide", gossh.Password(r.opts.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	tm := openTerminal(t, c, 400, 120)
	tm.waitFor("your terminal is 400×120: the glass box draws at most 150×40 here")
}

// Two learners at once: each has their own workspace and session; neither
// sees the other's files on screen, in their folder or in their session.
func TestLearnersAreIsolated(t *testing.T) {
	r := newRoom(t, Options{})
	a, b := r.learn("ada"), r.learn("bob")
	a.waitFor("Enter: send the tour lesson")
	b.waitFor("Enter: send the tour lesson")

	wsA := filepath.Join(r.learnerDir("user", "ada"), "session.files", "workspace")
	wsB := filepath.Join(r.learnerDir("user", "bob"), "session.files", "workspace")
	for _, ws := range []string{wsA, wsB} {
		if _, err := os.Stat(filepath.Join(ws, "README.md")); err != nil {
			t.Fatalf("no sample workspace copy: %v", err)
		}
	}
	writeFile(t, filepath.Join(wsA, "only-ada.txt"), "ada's secret")

	for _, tm := range []*terminal{a, b} {
		tm.keys("\r")
		tm.waitFor("press space to take it")
		tm.keys("c")
		tm.waitFor("answer delivered to ui")
	}
	a.waitFor("only-ada.txt")
	if strings.Contains(b.text(), "only-ada") {
		t.Fatal("bob's glass box listed ada's file")
	}
	if _, err := os.Stat(filepath.Join(wsB, "only-ada.txt")); err == nil {
		t.Fatal("ada's file is in bob's workspace")
	}
	sessB, err := os.ReadFile(filepath.Join(r.learnerDir("user", "bob"), "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sessB), "only-ada") || strings.Contains(string(sessB), wsA) {
		t.Fatal("bob's session mentions ada's files")
	}
	// A user name shaped like a path stays a name.
	for _, name := range []string{"../ada", "ada/../bob", "/etc"} {
		if d := r.learnerDir("user", name); filepath.Dir(d) != filepath.Join(r.opts.StateDir, "serve", "learners") {
			t.Fatalf("%q's folder is %s", name, d)
		}
	}
}

// A learner who comes back with the same name finds their run as they left it.
func TestReconnectResumes(t *testing.T) {
	r := newRoom(t, Options{})
	a := r.learn("ada")
	a.waitFor("Enter: send the tour lesson")
	a.keys("\r")
	a.waitFor("press space to take it")
	a.keys("c")
	a.waitFor("answer delivered to ui")
	a.close()
	waitUntil(t, "ada gone", func() bool { return r.srv.Learners() == 0 })

	again := r.learn("ada")
	again.waitFor("answer delivered to ui") // the past steps are back on screen
	again.waitFor("WAITING_FOR_EVENT")
	if strings.Contains(again.text(), "Enter: send the tour lesson") {
		t.Fatal("the resumed glass box offers the lesson again, as if new")
	}
	// Someone else is new.
	r.learn("bob").waitFor("Enter: send the tour lesson")
}

func TestHostKeyKeptAndPrivate(t *testing.T) {
	dir := t.TempDir()
	s1, err := New(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "serve_host_ed25519"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("host key mode %v, want 0600", fi.Mode().Perm())
	}
	s2, err := New(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s1.Fingerprint() != s2.Fingerprint() || !strings.HasPrefix(s1.Fingerprint(), "SHA256:") {
		t.Fatalf("fingerprints %q then %q: the host key changed", s1.Fingerprint(), s2.Fingerprint())
	}
	if s1.Passphrase() == "" || s1.Passphrase() == s2.Passphrase() {
		t.Fatalf("passphrases %q and %q: each start makes a new one", s1.Passphrase(), s2.Passphrase())
	}
	os.Chmod(filepath.Join(dir, "serve_host_ed25519"), 0o644)
	if _, err := New(Options{StateDir: dir}); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a host key readable by others: err = %v", err)
	}
}

func (r *room) learnerDir(kind, who string) string {
	return filepath.Join(r.opts.StateDir, "serve", "learners", learnerID(kind, who))
}

func waitUntil(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
