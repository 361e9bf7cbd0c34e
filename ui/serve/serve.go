// Package serve is `glassbox serve`: an SSH server (wish, with its Bubble
// Tea middleware) that gives every learner who connects their own glass box
// — their own session, their own copy of the sample workspace, the same
// sandbox — so a workshop needs one machine with glassbox and, on each
// learner's side, only `ssh -p 2222 host`.
//
// Who gets in: anyone with the workshop passphrase (password or
// keyboard-interactive), or a key listed in --authorized-keys. What they
// get: the glass box and nothing else — exec, subsystems (SFTP; the one
// served is the follow stream, to followers), port and
// agent forwarding are refused. Each learner is a folder under the
// server's state folder, named from their user name (passphrase) or key;
// connecting again with the same name or key resumes their session.
package serve

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
)

// Options is how the room is served. The zero value of each limit is its
// default.
type Options struct {
	// Addr is where Main listens (":2222").
	Addr string
	// Predict starts every learner's glass box in predict mode.
	Predict bool
	// Instruct makes Main run the instructor's own glass box in its
	// terminal, broadcast to the learners who connect as FollowUser.
	Instruct bool
	// StateDir is glassbox's state folder ($XDG_STATE_HOME/glassbox): the
	// host key and the learners' folders live there. Required.
	StateDir string
	// Passphrase is the workshop passphrase; "" makes a new one (Passphrase
	// returns it). With AuthorizedKeys set and no Passphrase, only keys get in.
	Passphrase string
	// PassphraseChosen says the instructor chose Passphrase (PassphraseEnv):
	// the banner then never prints it.
	PassphraseChosen bool
	// AuthorizedKeys is an authorized_keys file: its keys get in.
	AuthorizedKeys string
	// MaxLearners is how many learners may be connected at once (50).
	MaxLearners int
	// Idle ends a connection with no key or mouse input for this long (30m).
	Idle time.Duration
	// MaxWidth and MaxHeight are the largest frame drawn (300×100): a
	// bigger terminal gets a frame of this size.
	MaxWidth, MaxHeight int
	// MaxPaste is the largest paste accepted, in bytes (4096).
	MaxPaste int
	// HandoutsHTTP, when set, is where learners fetch their handouts over
	// HTTP (":8080"), each at an address only they are shown.
	HandoutsHTTP string
	// Run is every learner's run: provider, model, backend, lesson, limits.
	// Its Workspace, Session and Resume are the server's to set.
	Run agentrun.Config
	// Broadcast is the instructor's run, for the learners who connect as
	// FollowUser; nil when nobody instructs.
	Broadcast *Broadcast
	// FollowOnly serves followers only (glassbox --broadcast): anyone else
	// is told the room has no glass boxes of its own.
	FollowOnly bool
	// Instructor describes the instructor's run to its followers (banner,
	// backend, provider): InstructorView makes it.
	Instructor glassbox.RunConfig
	// Log, when set, hears what the room has to say while it is served,
	// a line each: it grew past what the machine was measured to carry
	// (Main prints it; an instructor's glass box says it too, Notes).
	Log func(string)
}

// FollowUser is the user name that follows the instructor instead of
// getting a glass box of one's own.
const FollowUser = "follow"

func (o *Options) defaults() {
	if o.MaxLearners <= 0 {
		o.MaxLearners = 50
	}
	if o.Idle <= 0 {
		o.Idle = 30 * time.Minute
	}
	if o.MaxWidth <= 0 {
		o.MaxWidth = 300
	}
	if o.MaxHeight <= 0 {
		o.MaxHeight = 100
	}
	if o.MaxPaste <= 0 {
		o.MaxPaste = 4096
	}
}

// Server is a room being served.
type Server struct {
	opts        Options
	ssh         *ssh.Server
	passphrase  string
	keys        []gossh.PublicKey
	fingerprint string

	sandbox string // tools.SandboxStatus, for followers' status bar

	mu        sync.Mutex
	active    map[string]bool // learner ids connected now
	count     int             // connected now: learners and followers
	following int             // of them, followers

	// The room's life (life.go): each glass box's program, to be told when
	// the room ends; why it is ending ("" while it is served); the
	// connections still being served; what the machine carries and
	// whether the room is over it; what the instructor is told.
	programs     map[string]*tea.Program
	ending       string
	gates        sync.WaitGroup
	capacity     capacity
	overCapacity bool
	notes        chan string

	seats    *seats       // the roster: who is connected, where they are
	scores   *scoreBook   // the learners' predict scores, kept on disk
	handouts *handoutDesk // --handouts-http: the learners' pages, fetched by token
	lang     lang.Lang    // the room's language (serve --lang, else the locale): the banner, and every learner whose ssh sends no locale (learnerLang)
}

// ctx keys for what authentication found out.
type ctxKey string

const learnerKey ctxKey = "glassbox-learner"

// New prepares the server: the host key (made on first use), the
// passphrase, the authorized keys. Nothing listens yet.
func New(opts Options) (*Server, error) {
	opts.defaults()
	if opts.StateDir == "" {
		return nil, sentence.Errorf("serve: no state folder (set XDG_STATE_HOME or HOME)")
	}
	if err := os.MkdirAll(opts.StateDir, 0o700); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, active: map[string]bool{}, passphrase: opts.Passphrase, sandbox: tools.SandboxStatus(),
		programs: map[string]*tea.Program{}, capacity: machine(), notes: make(chan string, 8)}
	if opts.AuthorizedKeys != "" {
		keys, err := readAuthorizedKeys(opts.AuthorizedKeys)
		if err != nil {
			return nil, err
		}
		s.keys = keys
	} else if s.passphrase == "" {
		s.passphrase = newPassphrase()
	}
	pemBytes, err := hostKey(filepath.Join(opts.StateDir, "serve_host_ed25519"))
	if err != nil {
		return nil, err
	}
	signer, err := gossh.ParsePrivateKey(pemBytes)
	if err != nil {
		return nil, sentence.Errorf("serve: host key: %v", err)
	}
	s.fingerprint = gossh.FingerprintSHA256(signer.PublicKey())
	s.lang = lang.Lang(opts.Run.Lang)
	s.seats, s.scores = newSeats(), newScoreBook(pemBytes, s.lang)
	if opts.HandoutsHTTP != "" {
		s.handouts = newHandoutDesk(s.lang)
	}

	sopts := []ssh.Option{
		wish.WithHostKeyPEM(pemBytes),
		wish.WithMiddleware(bm.MiddlewareWithProgramHandler(s.program, termenv.ANSI256), s.gate),
		func(srv *ssh.Server) error {
			// A shell is the only request that gets anything, and the
			// follow stream (follow_wire.go) the only subsystem: exec
			// (`ssh host cmd`) and other subsystems (SFTP, scp) are refused.
			srv.SessionRequestCallback = func(_ ssh.Session, t string) bool { return t == "shell" || t == "subsystem" }
			srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{FollowSubsystem: s.followStream}
			// Port forwarding: no direct-tcpip channel handler and no
			// tcpip-forward request handler, so both are refused; the
			// session channel drops agent and X11 forwarding requests.
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": sessionWithoutForwarding}
			srv.RequestHandlers = map[string]ssh.RequestHandler{}
			return nil
		},
	}
	if s.passphrase != "" {
		sopts = append(sopts,
			wish.WithPasswordAuth(func(ctx ssh.Context, pw string) bool { return s.admitPassword(ctx, pw) }),
			wish.WithKeyboardInteractiveAuth(func(ctx ssh.Context, ch gossh.KeyboardInteractiveChallenge) bool {
				// Asked before the session says its locale: in the room's language.
				answers, err := ch("", s.lang.T("glassbox workshop"), []string{s.lang.T("passphrase: ")}, []bool{false})
				return err == nil && len(answers) == 1 && s.admitPassword(ctx, answers[0])
			}))
	}
	if len(s.keys) > 0 {
		sopts = append(sopts, wish.WithPublicKeyAuth(s.admitKey))
	}
	srv, err := wish.NewServer(sopts...)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s.ssh = srv
	// Every learner's frame uses 256 colours and a dark background: the
	// theme's styles are the package's, shared by every connection, and
	// asking each terminal (bm.MakeRenderer) blocks until it answers.
	lipgloss.SetColorProfile(termenv.ANSI256)
	lipgloss.SetHasDarkBackground(true)
	return s, nil
}

// Passphrase is the workshop passphrase ("" when only keys get in).
func (s *Server) Passphrase() string { return s.passphrase }

// Fingerprint is the host key's SHA256 fingerprint, as ssh shows it.
func (s *Server) Fingerprint() string { return s.fingerprint }

// Serve accepts connections on ln until Close.
func (s *Server) Serve(ln net.Listener) error {
	err := s.ssh.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops accepting and ends every connection; each learner's glass box
// closes its run (the session is kept).
func (s *Server) Close() error {
	if s.handouts != nil {
		s.handouts.close()
	}
	return s.ssh.Close()
}

// Learners is how many learners are connected now.
func (s *Server) Learners() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

func (s *Server) admitPassword(ctx ssh.Context, pw string) bool {
	if subtle.ConstantTimeCompare([]byte(pw), []byte(s.passphrase)) != 1 {
		return false
	}
	ctx.SetValue(learnerKey, learnerID("user", ctx.User()))
	return true
}

func (s *Server) admitKey(ctx ssh.Context, key ssh.PublicKey) bool {
	for _, k := range s.keys {
		if ssh.KeysEqual(key, k) {
			ctx.SetValue(learnerKey, learnerID("key", string(key.Marshal())))
			return true
		}
	}
	return false
}

// learnerID names a learner's folder: a hash of how they got in, so no
// user name can reach outside the learners' folder or into another's.
func learnerID(kind, who string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + who))
	return kind + "-" + hex.EncodeToString(sum[:12])
}

// A learner is one connected learner: their runs and why they left.
type learner struct {
	id     string
	dir    string // their folder: session, workspace, scores
	runs   []*agentrun.Run
	cfg    glassbox.Config
	ctx    context.Context // the base of the learner's steps
	cancel context.CancelFunc
	reason string    // why the server ended the connection ("" when the learner quit), in lang
	ended  ended     // the room ended (why "" while it is served): said once the glass box closes
	lang   lang.Lang // the language the learner reads (learnerLang)
	// follower watches the instructor: no run of their own, no idle limit.
	follower bool

	mu      sync.Mutex
	scores  map[string]glassbox.Score // their predict scores as last told (keep)
	version int
}

// keep notes the learner's latest scores (version orders them), to be
// saved once more when they leave.
func (l *learner) keep(version int, scores map[string]glassbox.Score) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if version > l.version {
		l.version, l.scores = version, scores
	}
}

const learnerState ctxKey = "glassbox-learner-state"

// gate runs first on every session: it admits the learner (room not full,
// not connected twice), opens their glass box's run, hands it to the Bubble
// Tea middleware (next) and, when the program ends, closes the run (the
// session stays on disk) and says why the server ended it.
func (s *Server) gate(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		s.gates.Add(1)
		defer s.gates.Done()
		say := learnerLang(sess.Environ(), s.lang)
		id, _ := sess.Context().Value(learnerKey).(string)
		if id == "" {
			wish.Fatalln(sess, "glassbox serve: "+say.T("not signed in"))
			return
		}
		if _, _, ok := sess.Pty(); !ok {
			wish.Fatalln(sess, "glassbox serve: "+say.T("the glass box needs a terminal: connect with `ssh -t` (commands are not run here)"))
			return
		}
		if sess.User() == FollowUser {
			s.follow(sess, next, say)
			return
		}
		if s.opts.FollowOnly {
			wish.Fatalln(sess, "glassbox: "+say.T("this is a broadcast to follow, with no glass boxes of its own: connect as 'follow' (ssh -p PORT follow@HOST, or glassbox follow HOST:PORT)"))
			return
		}
		if msg := s.enter(id, say); msg != "" {
			wish.Fatalln(sess, "glassbox serve: "+msg)
			return
		}
		defer s.leave(id)
		defer s.seats.stand(id)
		host, _, _ := net.SplitHostPort(sess.LocalAddr().String())
		l, err := s.open(sess.Context(), id, host, say)
		if err != nil {
			wish.Fatalln(sess, "glassbox serve: "+say.F("cannot open your glass box: %s", strings.TrimPrefix(say.Error(err), agentrun.ErrUsage.Error()+": ")))
			return
		}
		defer func() {
			l.cancel() // the steps in flight end before the run closes
			if err := agentrun.CloseAll(l.runs); err != nil {
				fmt.Fprintf(sess.Stderr(), "glassbox serve: %s\r\n", say.Error(err))
			}
		}()
		sess.Context().SetValue(learnerState, l)
		defer s.unregister(id)
		next(sess)
		l.mu.Lock()
		if l.version > 0 {
			if err := s.scores.save(l.dir, id, l.version, l.scores); err != nil {
				fmt.Fprint(sess.Stderr(), "glassbox serve: "+say.F("your predict score could not be kept: %v", err)+"\r\n")
			}
		}
		e := l.ended
		l.mu.Unlock()
		switch {
		case e.why != "":
			fmt.Fprint(sess, terminalText(endedText(say, e, comeBack(sess, shownName(sess.User())))))
		case l.reason != "":
			fmt.Fprintf(sess, "\r\nglassbox serve: %s\r\n", say.F("%s; your session is kept — connect again to go on.", l.reason))
		}
	}
}

// learnerLang is the language a learner reads: their own locale when their
// ssh sent one (OpenSSH's SendEnv LANG LC_*, on by default in many
// distributions' ssh_config; or LANG=ja_JP.UTF-8 ssh -o SendEnv=LANG …),
// else the room's (serve --lang, else the server's locale).
func learnerLang(env []string, room lang.Lang) lang.Lang {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	if vars["LC_ALL"] == "" && vars["LC_MESSAGES"] == "" && vars["LANG"] == "" {
		return room
	}
	return lang.FromLocale(func(k string) string { return vars[k] })
}

// follow serves a follower: the instructor's run, read-only.
func (s *Server) follow(sess ssh.Session, next ssh.Handler, say lang.Lang) {
	b := s.opts.Broadcast
	if b == nil {
		wish.Fatalln(sess, "glassbox serve: "+say.T("nobody is instructing in this room (the instructor starts glassbox serve --instruct); connect with your own name for your own glass box"))
		return
	}
	if b.Ended() {
		wish.Fatalln(sess, "glassbox serve: "+say.T("the instructor has left: the room goes on without their glass box; connect with your own name for a glass box of your own"))
		return
	}
	id := "follow-" + sess.Context().SessionID()
	if msg := s.enter(id, say); msg != "" {
		wish.Fatalln(sess, "glassbox serve: "+msg)
		return
	}
	defer s.leave(id)
	f, past := b.Follow()
	defer f.Close()
	rc := s.opts.Instructor
	rc.Past = past
	cfg := glassbox.Config{
		Runs:    []glassbox.RunConfig{rc},
		Sandbox: s.sandbox,
		Follow:  &glassbox.Follow{Who: "instructor", Next: f.Next},
		Status:  func() (string, string) { return "FOLLOWING", say.T("the instructor") },
		Lang:    say,
	}
	ctx, cancel := context.WithCancel(sess.Context())
	defer cancel()
	l := &learner{id: id, cfg: cfg, ctx: ctx, cancel: cancel, follower: true, lang: say}
	sess.Context().SetValue(learnerState, l)
	defer s.unregister(id)
	next(sess)
	l.mu.Lock()
	why := l.ended.why
	l.mu.Unlock()
	if why != "" {
		fmt.Fprint(sess, terminalText(followEndedText(say, why, comeBack(sess, FollowUser))))
	}
}

// InstructorView is what followers are told of the instructor's run rc:
// its static facts, read once before the room opens, and no engine.
func InstructorView(rc glassbox.RunConfig) glassbox.RunConfig {
	if e := rc.Engine; e != nil {
		if p := e.Provider(); p != nil {
			rc.Provider, rc.Model = p.Name(), p.Model()
		}
		rc.MaxIterations = e.MaxIterations()
	}
	rc.Engine, rc.Person, rc.Onto, rc.Exchanges, rc.Notes, rc.Past = nil, nil, nil, nil, nil, nil
	return rc
}

// enter takes a place in the room for learner id, or says why not (in say).
func (s *Server) enter(id string, say lang.Lang) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending != "" {
		return say.T("the room is ending; ask the instructor when it is served again")
	}
	if s.active[id] {
		return say.T("you are already connected from another terminal; close that one first (one glass box per learner)")
	}
	if s.count >= s.opts.MaxLearners {
		return say.F("the room is full (%d learners connected, the limit); ask the instructor, or try again when someone leaves", s.count)
	}
	s.active[id] = true
	s.count++
	if isFollower(id) {
		s.following++
	}
	s.watchCapacity()
	return ""
}

func (s *Server) leave(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.active, id)
	s.count--
	if isFollower(id) {
		s.following--
	}
	s.watchCapacity()
}

// isFollower reports whether a place in the room is a follower's (its id
// is made in follow and followStream).
func isFollower(id string) bool { return strings.HasPrefix(id, "follow-") }

// learnerQuota caps each learner's workspace (docs/classroom.md): a
// lesson's workspace holds a few files of a few kilobytes, and a room of 30
// learners at their quota takes under 4 GiB of the machine's disk.
func learnerQuota() tools.Quota { return tools.Quota{Bytes: 128 << 20, Entries: 10_000} }

// open builds learner id's run: their session resumed when they have one,
// else a new session with a fresh copy of the sample workspace, both in
// their own folder, in language say. host is where the learner reached
// the room (their handouts' address names it).
func (s *Server) open(ctx context.Context, id, host string, say lang.Lang) (*learner, error) {
	dir := filepath.Join(s.opts.StateDir, "serve", "learners", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	c := s.opts.Run
	c.Workspace, c.CopyWorkspace, c.Compare, c.Name = "", false, nil, ""
	c.Session, c.Resume, c.From, c.Onto = "", "", -1, ""
	c.Trace, c.Record = "", ""
	c.Quota = learnerQuota()
	c.Lang = say.String()
	c.GoLive = role.Learner.TutorGoLive() // the tutor tells a learner to ask the instructor
	path := filepath.Join(dir, "session.jsonl")
	if _, err := os.Stat(path); err == nil {
		c.Resume = path
	} else {
		c.Session = path
	}
	person := glassbox.NewPerson()
	runs, err := agentrun.OpenAll(ctx, c, func(string) loop.Person { return person })
	if err != nil {
		return nil, err
	}
	cfg, err := glassbox.ConfigFor(c.Lesson, runs, map[string]*glassbox.Person{runs[0].Config.Name: person})
	if err != nil {
		agentrun.CloseAll(runs)
		return nil, err
	}
	cfg.Resume = "" // the learner reconnects; no command of the server's applies to them
	cfg.Predict = s.opts.Predict
	cfg.Lang = say // the learner's language (learnerLang)
	cfg.Room = &glassbox.Room{}
	if cfg.Room.Scores, err = s.scores.load(dir, id); err != nil {
		cfg.Runs[0].Notes = append(cfg.Runs[0].Notes, say.F("your predict scores from before were not used (%v): they start again at 0/0", err))
	}
	if s.handouts != nil {
		cfg.Room.Handout = s.handouts.link(id, filepath.Join(session.DataDir(path), "handouts"), host)
	}
	lctx, cancel := context.WithCancel(ctx)
	return &learner{id: id, dir: dir, runs: runs, cfg: cfg, ctx: lctx, cancel: cancel, lang: say}, nil
}

// hostKey reads the server's host key at path, or makes one (ed25519, 0600).
func hostKey(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			return nil, sentence.Errorf("serve: the host key %s is readable by others (mode %v); chmod 600 it", path, fi.Mode().Perm())
		}
		return b, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, sentence.Errorf("serve: host key: %v", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "glassbox serve")
	if err != nil {
		return nil, err
	}
	b := pem.EncodeToMemory(block)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, sentence.Errorf("serve: host key: %v", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, sentence.Errorf("serve: host key: %v", err)
	}
	return b, f.Close()
}

func readAuthorizedKeys(path string) ([]gossh.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--authorized-keys: %w", err)
	}
	var keys []gossh.PublicKey
	for line := 1; len(b) > 0; line++ {
		var k gossh.PublicKey
		var rest []byte
		k, _, _, rest, err = gossh.ParseAuthorizedKey(b)
		if err != nil {
			if strings.TrimSpace(string(b)) == "" {
				break
			}
			return nil, sentence.Errorf("--authorized-keys %s: key %d: %v", path, line, err)
		}
		keys = append(keys, k)
		b = rest
	}
	if len(keys) == 0 {
		return nil, sentence.Errorf("--authorized-keys %s: no keys in the file", path)
	}
	return keys, nil
}

// newPassphrase is three groups of four letters and digits (about 60 bits),
// easy to read out in a room.
func newPassphrase() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789" // no l, o, 0, 1
	b := make([]byte, 12)
	rand.Read(b) // never fails (Go 1.24+)
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%4 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return sb.String()
}
