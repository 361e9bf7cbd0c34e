package serve

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
)

// BindFlags binds serve's own flags onto fs (the run's flags are main's).
// The descriptions are in l, the language of the help.
func BindFlags(fs *flag.FlagSet, o *Options, l lang.Lang) {
	o.Addr = ":2222"
	fs.StringVar(&o.Addr, "addr", o.Addr, l.T("serve: the address to listen on"))
	fs.StringVar(&o.AuthorizedKeys, "authorized-keys", "", l.T("serve: an authorized_keys FILE; its keys get in, and no passphrase is made (only with GLASSBOX_PASSPHRASE set does a passphrase get in too)"))
	fs.IntVar(&o.MaxLearners, "max-learners", 50, l.T("serve: learners connected at once"))
	fs.DurationVar(&o.Idle, "idle", 30*time.Minute, l.T("serve: disconnect a learner after this long without a key"))
	fs.BoolVar(&o.Instruct, "instruct", false, l.T("serve: run your own glass box here and broadcast it to the learners who connect as 'follow'"))
	fs.BoolVar(&o.Predict, "predict", false, l.T("serve: every learner starts in predict mode (P toggles it)"))
	fs.IntVar(&o.MaxPaste, "max-paste", 4096, l.T("serve: the largest paste accepted, in bytes"))
	fs.StringVar(&o.HandoutsHTTP, "handouts-http", "", l.T("serve: also answer HTTP on this ADDR (\":8080\"): each learner fetches their handouts (X) at an address only they are shown"))
}

// notForServe are the run flags that name one person's files: in a room
// every learner has their own workspace and session.
var notForServe = []string{"workspace", "session", "resume", "from", "compare", "trace", "record"}

// Refuses reports whether serve refuses the run flag name (serve --help
// does not list it).
func Refuses(name string) bool { return slices.Contains(notForServe, name) }

// PassphraseEnv is the variable an instructor chooses the workshop
// passphrase with: from the environment, never a flag (a command line is
// seen by every user of the machine and kept in shell history), and never
// printed.
const PassphraseEnv = "GLASSBOX_PASSPHRASE"

// minPassphrase is the shortest passphrase an instructor may choose.
const minPassphrase = 8

// Configure finishes o from the run's config c (main's flags): a room is
// offline unless a provider flag says otherwise, and the flags that name
// one person's files are refused. getenv finds the state folder.
func Configure(o *Options, c agentrun.Config, fs *flag.FlagSet, rest []string, getenv func(string) string) error {
	if len(rest) > 0 {
		return sentence.Errorf("%w: unexpected argument %q (glassbox serve takes only flags)", agentrun.ErrUsage, rest[0])
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range notForServe {
		if set[name] {
			return sentence.Errorf("%w: --%s is not for serve: each learner gets their own workspace and session", agentrun.ErrUsage, name)
		}
	}
	if o.MaxLearners < 1 || o.MaxPaste < 1 || o.Idle <= 0 {
		return sentence.Errorf("%w: --max-learners, --max-paste and --idle must be positive", agentrun.ErrUsage)
	}
	if !set["provider"] && !set["model"] && !set["live"] && !set["replay"] && !set["tool-mode"] {
		c.Offline = true // a room is offline unless the instructor chooses a provider
		c.OfflineWhy = dialect.Sayf("a room is offline unless its instructor chooses a provider (--provider, --model, --live or --replay)")
	}
	if p := getenv(PassphraseEnv); p != "" {
		if n := utf8.RuneCountInString(strings.TrimSpace(p)); n < minPassphrase {
			return sentence.Errorf("%w: %s is %d characters; a workshop passphrase needs at least %d", agentrun.ErrUsage, PassphraseEnv, n, minPassphrase)
		}
		o.Passphrase, o.PassphraseChosen = strings.TrimSpace(p), true
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
	o.Log = func(line string) { fmt.Fprintln(out, "glassbox serve: "+line) }
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
		s.End(whyStopped, endGrace)
		<-done
		fmt.Fprintln(out, "glassbox serve: "+s.lang.T("stopped; every learner's session is kept"))
		return nil
	}
}

// Announce prints what the instructor reads out: the address, how to get
// in, the host key's fingerprint.
func (s *Server) Announce(out io.Writer, addr net.Addr) {
	_, port, _ := net.SplitHostPort(addr.String())
	l := s.lang
	var rows [][2]string // label, value
	if s.opts.FollowOnly {
		fmt.Fprintln(out, l.F("glassbox: broadcasting on %s (up to %d followers)", addr, s.opts.MaxLearners))
	} else {
		fmt.Fprintf(out, "glassbox serve: %s\n", l.F("listening on %s (up to %d learners)", addr, s.opts.MaxLearners))
		rows = append(rows, [2]string{l.T("learners connect with:"), l.F("ssh -p %s NAME@HOST  (NAME is theirs: the same name resumes their session)", port)})
	}
	switch {
	case s.passphrase != "" && s.opts.PassphraseChosen:
		rows = append(rows, [2]string{l.T("workshop passphrase:"), l.F("the one you chose (%s; not shown)", PassphraseEnv)})
	case s.passphrase != "":
		rows = append(rows, [2]string{l.T("workshop passphrase:"), s.passphrase})
	}
	if len(s.keys) > 0 {
		rows = append(rows, [2]string{l.T("authorized keys:"), l.F("%d from %s", len(s.keys), s.opts.AuthorizedKeys)})
	}
	if s.opts.Broadcast != nil {
		rows = append(rows, [2]string{l.T("follow the instructor:"), l.F("ssh -p %s %s@HOST  (read-only, live)", port, FollowUser)})
		rows = append(rows, [2]string{strings.TrimSpace(l.T("or, with glassbox:     ")), fmt.Sprintf("glassbox follow HOST:%s --fingerprint %s", port, s.fingerprint)})
	}
	if s.handouts != nil {
		rows = append(rows, [2]string{l.T("handouts over HTTP:"), l.F("port %s  (X shows each learner the address of their own pages)", s.handouts.portNow())})
	}
	rows = append(rows, [2]string{l.T("host key fingerprint:"), s.fingerprint})
	if s.opts.FollowOnly {
		printRows(out, rows)
		fmt.Fprintln(out, "  "+l.T("q in the glass box ends the broadcast"))
		return
	}
	kind := l.T("offline simulation")
	if !s.opts.Run.Offline {
		kind = l.F("provider %s (the server's key; learners never see it)", s.opts.Run.Provider)
	}
	rows = append(rows, [2]string{l.T("every learner runs:"), l.F("%s, lesson %s", kind, s.opts.Run.Lesson)})
	printRows(out, rows)
	fmt.Fprintf(out, "  %s\n", l.T("stop with Ctrl-C"))
}

// printRows prints the banner's labelled lines, the values in one column
// two cells after the widest label (a double-width character takes two),
// and never before cell 24, where the English labels put them.
func printRows(out io.Writer, rows [][2]string) {
	width := len("learners connect with:")
	for _, r := range rows {
		width = max(width, ansi.StringWidth(r[0]))
	}
	for _, r := range rows {
		fmt.Fprintf(out, "  %s%s%s\n", r[0], strings.Repeat(" ", width+2-ansi.StringWidth(r[0])), r[1])
	}
}

// instruct is Main with --instruct: the instructor's glass box runs in this
// terminal, with its own session, while the room is served; each of its
// transitions is broadcast to the followers, and its status bar counts them.
func instruct(ctx context.Context, o Options, out io.Writer) error {
	c := o.Run
	c.GoLive = role.Instructor.TutorGoLive()
	if err := c.DefaultSession(os.Getenv); err != nil {
		return err
	}
	person := glassbox.NewPerson()
	runs, err := agentrun.OpenAll(ctx, c, func(string) loop.Person { return person })
	if err != nil {
		return err
	}
	defer agentrun.CloseAll(runs)
	cfg, err := glassbox.ConfigFor(c.Lesson, runs, map[string]*glassbox.Person{runs[0].Config.Name: person})
	if err != nil {
		return err
	}
	// While the glass box runs, the room's log is its log file (glassbox.Run
	// sends the log package there) and the glass box says each line too;
	// once it has closed, the terminal.
	l := lang.Lang(c.Lang)
	var open atomic.Bool
	open.Store(true)
	o.Log = func(line string) {
		if open.Load() {
			log.Print("glassbox serve: " + line)
			return
		}
		fmt.Fprintln(out, "glassbox serve: "+line)
	}
	b, stop, err := Broadcasting(&cfg, o, out)
	if err != nil {
		return err
	}
	defer stop()
	var keep atomic.Bool
	cfg.Room.Leaving = keep.Store
	cfg.Predict = o.Predict
	err = glassbox.Run(ctx, cfg)
	open.Store(false)
	if err != nil || !keep.Load() || ctx.Err() != nil {
		return err
	}
	// The instructor leaves; the room goes on without their glass box
	// until Ctrl-C here.
	b.End()
	fmt.Fprintln(out, "glassbox serve: "+l.T("your glass box is closed and your session kept; the room goes on serving the learners — Ctrl-C here ends it"))
	<-ctx.Done()
	return nil
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
