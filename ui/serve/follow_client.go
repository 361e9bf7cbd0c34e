package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// FollowOptions is `glassbox follow ADDR`: whom to follow and how the
// server is recognised.
type FollowOptions struct {
	// Addr is the room's address, HOST or HOST:PORT (port 2222).
	Addr string
	// Fingerprint pins the server's host key ("SHA256:…", as glassbox
	// serve prints it and ssh shows it). Without it the key must be in
	// KnownHosts.
	Fingerprint string
	// KnownHosts is an OpenSSH known_hosts file (~/.ssh/known_hosts).
	KnownHosts string
	// Passphrase asks for the workshop passphrase (without echo); it is
	// asked once the server is recognised, and at most once.
	Passphrase func() (string, error)
	// Lang is the language of what the follower reads.
	Lang lang.Lang
}

// DefaultKnownHosts is ~/.ssh/known_hosts ("" without a home).
func DefaultKnownHosts() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".ssh", "known_hosts")
}

// Followed is an instructor's broadcast being followed over the network.
type Followed struct {
	*StreamReader
	client *gossh.Client
	sess   *gossh.Session
}

// Close ends the connection.
func (f *Followed) Close() error {
	f.sess.Close()
	return f.client.Close()
}

// Dial connects to the room at o.Addr as FollowUser, after recognising the
// server, and opens the follow stream: SSH carries the instructor's
// transitions, which the follower's own glass box draws.
func Dial(ctx context.Context, o FollowOptions) (*Followed, error) {
	addr := o.Addr
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(strings.Trim(addr, "[]"), "2222")
	}
	pw := &passphrase{ask: o.Passphrase}
	cfg := &gossh.ClientConfig{
		User:            FollowUser,
		Auth:            pw.methods(),
		HostKeyCallback: hostKeyCheck(o),
	}
	client, err := handshake(ctx, addr, cfg, pw, o.Lang)
	if err != nil {
		return nil, err
	}
	f, err := openFollowStream(client, addr, o.Lang)
	if err == nil {
		f.Again = "glassbox follow " + addr
		if o.Fingerprint != "" {
			f.Again += " --fingerprint " + o.Fingerprint
		}
	}
	return f, err
}

// passphrase is the workshop passphrase, asked for at most once however
// many times the server asks.
type passphrase struct {
	ask  func() (string, error)
	said string
	err  error // why it could not be asked
}

func (p *passphrase) get() (string, error) {
	if p.said == "" && p.err == nil {
		p.said, p.err = p.ask()
	}
	return p.said, p.err
}

// methods are the ways the passphrase is given: as a password, or as the
// answer to every keyboard-interactive question.
func (p *passphrase) methods() []gossh.AuthMethod {
	return []gossh.AuthMethod{
		gossh.PasswordCallback(p.get),
		gossh.KeyboardInteractive(func(_, _ string, questions []string, _ []bool) ([]string, error) {
			answers := make([]string, len(questions))
			for i := range questions {
				pw, err := p.get()
				if err != nil {
					return nil, err
				}
				answers[i] = pw
			}
			return answers, nil
		}),
	}
}

// handshake reaches addr and recognises the server and is let in by it;
// Ctrl-C (ctx) ends it at any point.
func handshake(ctx context.Context, addr string, cfg *gossh.ClientConfig, pw *passphrase, l lang.Lang) (*gossh.Client, error) {
	d := net.Dialer{Timeout: 15 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, errors.New(l.F("cannot reach %s: %v", addr, err))
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // Ctrl-C during the handshake
	c, chans, reqs, err := gossh.NewClientConn(conn, addr, cfg)
	stop()
	if err != nil {
		conn.Close()
		return nil, handshakeError(err, pw, addr, l)
	}
	return gossh.NewClient(c, chans, reqs), nil
}

// handshakeError says why the handshake with addr failed: the server was
// not recognised, the passphrase could not be asked or was refused.
func handshakeError(err error, pw *passphrase, addr string, l lang.Lang) error {
	var hk *hostKeyError
	switch {
	case errors.As(err, &hk):
		return hk
	case pw.err != nil:
		return pw.err
	case strings.Contains(err.Error(), "unable to authenticate"):
		return errors.New(l.F("%s refused the passphrase (the workshop passphrase is the one glassbox serve printed; a room of keys only is followed with ssh -p PORT follow@HOST)", addr))
	}
	return fmt.Errorf("%s: %v", addr, err)
}

// openFollowStream opens the follow subsystem on client and reads the
// stream's header; when the server refuses, it says why on the session's
// stderr, and that is the error. The client is closed on failure.
func openFollowStream(client *gossh.Client, addr string, l lang.Lang) (*Followed, error) {
	sess, err := client.NewSession()
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("%s: %v", addr, err)
	}
	out, err := sess.StdoutPipe()
	var errOut io.Reader
	if err == nil {
		errOut, err = sess.StderrPipe()
	}
	if err == nil {
		err = sess.RequestSubsystem(FollowSubsystem)
	}
	if err != nil {
		sess.Close()
		client.Close()
		return nil, errors.New(l.F("%s does not broadcast (is it glassbox serve --instruct or glassbox --broadcast?): %v", addr, err))
	}
	r, err := ReadStream(out, l)
	if err != nil {
		// The server said why on the session's stderr, then ended it.
		said, _ := io.ReadAll(io.LimitReader(errOut, 4096))
		sess.Close()
		client.Close()
		if msg := strings.TrimSpace(loop.Printable(string(said))); msg != "" {
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("%s: %v", addr, err)
	}
	return &Followed{StreamReader: r, client: client, sess: sess}, nil
}

// hostKeyError says the server could not be recognised, and how to.
type hostKeyError struct{ msg string }

func (e *hostKeyError) Error() string { return e.msg }

// hostKeyCheck recognises the server by the pinned fingerprint, else by
// known_hosts; an unknown server is refused with its fingerprint, to be
// checked against the one the instructor reads out. Nothing is trusted
// silently, nothing is written to known_hosts.
func hostKeyCheck(o FollowOptions) gossh.HostKeyCallback {
	return func(host string, remote net.Addr, key gossh.PublicKey) error {
		got := gossh.FingerprintSHA256(key)
		if o.Fingerprint != "" {
			want := o.Fingerprint
			if !strings.HasPrefix(want, "SHA256:") {
				want = "SHA256:" + want
			}
			if got != want {
				return &hostKeyError{o.Lang.F("the server at %s has the host key %s, not the one you pinned (%s): someone may be between you and the room; do not go on, ask the instructor", host, got, want)}
			}
			return nil
		}
		if o.KnownHosts != "" {
			check, err := knownhosts.New(o.KnownHosts)
			if err == nil {
				err = check(host, remote, key)
				var ke *knownhosts.KeyError
				switch {
				case err == nil:
					return nil
				case errors.As(err, &ke) && len(ke.Want) > 0:
					return &hostKeyError{o.Lang.F("the server at %s has the host key %s, not the one %s knows for it: someone may be between you and the room; do not go on, ask the instructor", host, got, o.KnownHosts)}
				}
			} else if !errors.Is(err, os.ErrNotExist) {
				return &hostKeyError{o.Lang.F("cannot read the known_hosts file %s: %v", o.KnownHosts, err)}
			}
		}
		return &hostKeyError{o.Lang.F("the server at %s is not known: its host key is %s. Check it against the fingerprint the instructor reads out (glassbox serve prints it), then run again with --fingerprint %s", host, got, got)}
	}
}

// FollowConfig is the follower's glass box for f: the instructor's run,
// read-only, drawn from the stream.
func FollowConfig(f *Followed, addr string) glassbox.Config {
	rc := f.Run
	rc.Past = f.Past
	return glassbox.Config{
		Runs:   []glassbox.RunConfig{rc},
		Follow: &glassbox.Follow{Who: "instructor", Next: f.Next},
		Status: func() (string, string) { return "FOLLOWING", f.l.F("the instructor at %s", addr) },
		Lang:   f.l,
	}
}

// FollowMain is `glassbox follow ADDR`: it connects, then opens the
// follower's glass box on this terminal until q or the end of the room.
func FollowMain(ctx context.Context, o FollowOptions) error {
	f, err := Dial(ctx, o)
	if err != nil {
		return fmt.Errorf("%w: %v", agentrun.ErrUsage, err)
	}
	defer f.Close()
	return glassbox.Run(ctx, FollowConfig(f, o.Addr))
}
