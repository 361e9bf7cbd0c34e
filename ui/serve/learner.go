package serve

import (
	"maps"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	bm "github.com/charmbracelet/wish/bubbletea"

	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// program is the Bubble Tea middleware's handler: the learner's glass box
// (gate opened its run), inside the room's limits.
func (s *Server) program(sess ssh.Session) *tea.Program {
	l, _ := sess.Context().Value(learnerState).(*learner)
	if l == nil {
		return nil
	}
	build := func() roomModel {
		cfg := l.cfg
		cfg.Runs = slices.Clone(cfg.Runs) // glassbox.New takes the past out of them
		m := roomModel{
			inner: glassbox.NewServed(l.ctx, cfg),
			l:     l,
			opts:  &s.opts,
			now:   time.Now,
			seats: s.seats,
			book:  s.scores,
		}
		m.last = m.now()
		return m
	}
	m := build()
	if !l.follower {
		m.seat = m.inner.(*glassbox.Model).Seat()
		s.seats.sit(l.id, sess.User(), m.seat)
	}
	// The paste limit is enforced on the channel, before the program reads
	// anything (paste.go); what it refuses is said on the notice line.
	var p *tea.Program
	ready := make(chan struct{})
	guard := newInputGuard(sess, s.opts.MaxPaste, l.lang, func(msg string) {
		<-ready
		p.Send(glassbox.NoticeMsg(msg))
	})
	opts := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithFPS(frameRate)}, bm.MakeOptions(sess)...)
	// The room ends on the server's signal, not each program: a program
	// of its own would quit at Ctrl-C before the room could tell it why.
	opts = append(opts, tea.WithInput(guard), tea.WithoutSignalHandler())
	var model tea.Model = m
	if b := s.opts.Broadcast; l.follower && b != nil {
		next := l.cfg.Follow.Next
		model = b.shareFrames(m, func() tea.Model { return build() }, func() tea.Msg { return glassbox.FollowMsg(next(l.ctx)) }, len(l.cfg.Runs[0].Past))
	}
	p = tea.NewProgram(model, opts...)
	close(ready)
	s.register(l.id, p)
	return p
}

// frameRate is how often a learner's renderer may send a frame: Bubble
// Tea's highest. A key's frame waits for the renderer's next tick, up to
// 17 ms at its default of 60 and 8 ms at 120, of issue 22's 50 ms from key
// to frame; a tick with nothing new sends nothing.
const frameRate = 120

// roomModel is a learner's glass box inside the room's limits: a paste
// over the limit is refused, a terminal over the largest frame gets that
// frame, and a learner idle for too long is disconnected (told why).
type roomModel struct {
	inner tea.Model
	l     *learner
	opts  *Options
	now   func() time.Time
	last  time.Time // the learner's last key or mouse input

	// The learner's seat in the room, as last told to the roster (seats),
	// and its scores kept on disk (book) at each change (version).
	seats   *seats
	book    *scoreBook
	seat    glassbox.Seat
	version int
}

// idleCheckMsg asks whether the learner has been idle too long.
type idleCheckMsg struct{}

func (m roomModel) idleCheck() tea.Cmd {
	if m.l.follower {
		return nil // a follower watches; it types nothing
	}
	wait := m.opts.Idle - m.now().Sub(m.last)
	return tea.Tick(max(wait, time.Millisecond), func(time.Time) tea.Msg { return idleCheckMsg{} })
}

func (m roomModel) Init() tea.Cmd { return tea.Batch(m.inner.Init(), m.idleCheck()) }

func (m roomModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case roomEndMsg:
		// The room has ended: the glass box closes, and the gate says why
		// and how to come back.
		m.l.mu.Lock()
		m.l.ended = ended{why: msg.why, step: m.seat.Step}
		m.l.mu.Unlock()
		return m, tea.Quit
	case idleCheckMsg:
		if idle := m.now().Sub(m.last); idle >= m.opts.Idle {
			m.l.reason = m.l.lang.F("disconnected after %s without a key", m.opts.Idle)
			return m, tea.Quit
		}
		return m, m.idleCheck()
	case tea.KeyMsg:
		m.last = m.now()
	case tea.MouseMsg:
		m.last = m.now()
	case tea.WindowSizeMsg:
		if msg.Width > m.opts.MaxWidth || msg.Height > m.opts.MaxHeight {
			w, h := min(msg.Width, m.opts.MaxWidth), min(msg.Height, m.opts.MaxHeight)
			say := m.l.lang
			m, cmd := m.forward(tea.WindowSizeMsg{Width: w, Height: h})
			m2, cmd2 := m.(roomModel).forward(glassbox.NoticeMsg(say.F("your terminal is %d×%d: the glass box draws at most %d×%d here", msg.Width, msg.Height, w, h)))
			return m2, tea.Batch(cmd, cmd2)
		}
	}
	return m.forward(msg)
}

func (m roomModel) forward(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	m.inner, cmd = m.inner.Update(msg)
	if m.l.follower {
		return m, cmd
	}
	seat := m.inner.(*glassbox.Model).Seat()
	if seat.Equal(m.seat) {
		return m, cmd
	}
	scored := !maps.Equal(seat.Scores, m.seat.Scores)
	m.seat = seat
	m.seats.update(m.l.id, seat)
	if scored {
		m.version++
		l, v, book := m.l, m.version, m.book
		l.keep(v, seat.Scores)
		cmd = tea.Batch(cmd, func() tea.Msg {
			if err := book.save(l.dir, l.id, v, seat.Scores); err != nil {
				return glassbox.NoticeMsg(book.lang.F("your predict score could not be kept on the server: %v", err))
			}
			return nil
		})
	}
	return m, cmd
}

func (m roomModel) View() string { return m.inner.View() }
