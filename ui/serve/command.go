package serve

import (
	"os"

	"context"
	"flag"
	"fmt"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/ui"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"io"
	"net"
	"path/filepath"
	"time"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
)

// BindFlags binds serve's own flags onto fs (the run's flags are main's).
func BindFlags(fs *flag.FlagSet, o *Options) {
	o.Addr = ":2222"
	fs.StringVar(&o.Addr, "addr", o.Addr, "serve: the address to listen on")
	fs.StringVar(&o.AuthorizedKeys, "authorized-keys", "", "serve: an authorized_keys FILE; its keys get in (and only they, unless a passphrase is also set)")
	fs.IntVar(&o.MaxLearners, "max-learners", 50, "serve: learners connected at once")
	fs.DurationVar(&o.Idle, "idle", 30*time.Minute, "serve: disconnect a learner after this long without a key")
	fs.BoolVar(&o.Instruct, "instruct", false, "serve: run your own glass box here and broadcast it to the learners who connect as 'follow'")
	fs.BoolVar(&o.Predict, "predict", false, "serve: every learner starts in predict mode (P toggles it)")
	fs.IntVar(&o.MaxPaste, "max-paste", 4096, "serve: the largest paste accepted, in bytes")
	fs.StringVar(&o.HandoutsHTTP, "handouts-http", "", "serve: also answer HTTP on this ADDR (\":8080\"): each learner fetches their handouts (X) at an address only they are shown")
}

// notForServe are the run flags that name one person's files: in a room
// every learner has their own workspace and session.
var notForServe = []string{"workspace", "session", "resume", "from", "compare", "trace", "record"}

// Configure finishes o from the run's config c (main's flags): a room is
// offline unless a provider flag says otherwise, and the flags that name
// one person's files are refused. getenv finds the state folder.
func Configure(o *Options, c agentrun.Config, fs *flag.FlagSet, rest []string, getenv func(string) string) error {
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected argument %q (glassbox serve takes only flags)", agentrun.ErrUsage, rest[0])
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range notForServe {
		if set[name] {
			return fmt.Errorf("%w: --%s is not for serve: each learner gets their own workspace and session", agentrun.ErrUsage, name)
		}
	}
	if o.MaxLearners < 1 || o.MaxPaste < 1 || o.Idle <= 0 {
		return fmt.Errorf("%w: --max-learners, --max-paste and --idle must be positive", agentrun.ErrUsage)
	}
	if !set["provider"] && !set["model"] && !set["live"] && !set["replay"] && !set["tool-mode"] {
		c.Offline = true // a room is offline unless the instructor chooses a provider
	}
	dir, err := agentrun.SessionDir(getenv)
	if err != nil {
		return err
	}
	o.StateDir = filepath.Dir(dir) // $XDG_STATE_HOME/glassbox
	o.Run = c
	return nil
}

// Main serves the room on o.Addr until ctx ends, after printing how to get in.
func Main(ctx context.Context, o Options, out io.Writer) error {
	if o.Instruct {
		return instruct(ctx, o, out)
	}
	s, err := New(o)
	if err != nil {
		return err
	}
	ln, err := s.listen()
	if err != nil {
		return err
	}
	s.Announce(out, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		s.Close()
		<-done
		fmt.Fprintln(out, "glassbox serve: stopped; every learner's session is kept")
		return nil
	}
}

// Announce prints what the instructor reads out: the address, how to get
// in, the host key's fingerprint.
func (s *Server) Announce(out io.Writer, addr net.Addr) {
	_, port, _ := net.SplitHostPort(addr.String())
	l := lang.Lang(s.opts.Run.Lang)
	if s.opts.FollowOnly {
		fmt.Fprintln(out, l.F("glassbox: broadcasting on %s (up to %d followers)", addr, s.opts.MaxLearners))
	} else {
		fmt.Fprintf(out, "glassbox serve: listening on %s (up to %d learners)\n", addr, s.opts.MaxLearners)
		fmt.Fprintf(out, "  learners connect with:  ssh -p %s NAME@HOST  (NAME is theirs: the same name resumes their session)\n", port)
	}
	if s.passphrase != "" {
		fmt.Fprintf(out, "  workshop passphrase:    %s\n", s.passphrase)
	}
	if len(s.keys) > 0 {
		fmt.Fprintf(out, "  authorized keys:        %d from %s\n", len(s.keys), s.opts.AuthorizedKeys)
	}
	if s.opts.Broadcast != nil {
		fmt.Fprintf(out, "  follow the instructor:  ssh -p %s %s@HOST  (read-only, live)\n", port, FollowUser)
		fmt.Fprintf(out, "  %s glassbox follow HOST:%s --fingerprint %s\n", l.T("or, with glassbox:     "), port, s.fingerprint)
	}
	if s.handouts != nil {
		fmt.Fprintln(out, s.lang.F("  handouts over HTTP:     port %s  (X shows each learner the address of their own pages)", s.handouts.portNow()))
	}
	fmt.Fprintf(out, "  host key fingerprint:   %s\n", s.fingerprint)
	if s.opts.FollowOnly {
		fmt.Fprintln(out, "  "+l.T("q in the glass box ends the broadcast"))
		return
	}
	kind := "offline simulation"
	if !s.opts.Run.Offline {
		kind = "provider " + s.opts.Run.Provider + " (the server's key; learners never see it)"
	}
	fmt.Fprintf(out, "  every learner runs:     %s, lesson %s\n", kind, s.opts.Run.Lesson)
	fmt.Fprintln(out, "  stop with Ctrl-C")
}

// instruct is Main with --instruct: the instructor's glass box runs in this
// terminal, with its own session, while the room is served; each of its
// transitions is broadcast to the followers, and its status bar counts them.
func instruct(ctx context.Context, o Options, out io.Writer) error {
	c := o.Run
	if err := c.DefaultSession(os.Getenv); err != nil {
		return err
	}
	person := ui.NewPerson()
	runs, err := agentrun.OpenAll(ctx, c, func(string) loop.Person { return person })
	if err != nil {
		return err
	}
	defer agentrun.CloseAll(runs)
	cfg, err := ui.ConfigFor(c.Lesson, runs, map[string]*ui.Person{runs[0].Config.Name: person})
	if err != nil {
		return err
	}
	_, stop, err := Broadcasting(&cfg, o, out)
	if err != nil {
		return err
	}
	defer stop()
	cfg.Predict = o.Predict
	return ui.Run(ctx, cfg)
}

// listen opens the room's SSH address and, with --handouts-http, starts
// answering HTTP for the handouts.
func (s *Server) listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("%w: --addr %s: %v", agentrun.ErrUsage, s.opts.Addr, err)
	}
	if s.handouts == nil {
		return ln, nil
	}
	hl, err := net.Listen("tcp", s.opts.HandoutsHTTP)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("%w: --handouts-http %s: %v", agentrun.ErrUsage, s.opts.HandoutsHTTP, err)
	}
	s.handouts.listening(hl)
	go s.handouts.serve(hl)
	return ln, nil
}

// either signals on its channel whenever a or b does, until ctx ends: the
// instructor's frame is drawn anew when the followers or the roster change.
func either(ctx context.Context, a, b <-chan struct{}) <-chan struct{} {
	out := make(chan struct{}, 1)
	go func() {
		for {
			select {
			case <-a:
			case <-b:
			case <-ctx.Done():
				return
			}
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out
}
