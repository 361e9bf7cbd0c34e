package serve

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	bm "github.com/charmbracelet/wish/bubbletea"

	"github.com/glassbox-dev/glassbox/ui"
)

// program is the Bubble Tea middleware's handler: the learner's glass box
// (gate opened its run), inside the room's limits.
func (s *Server) program(sess ssh.Session) *tea.Program {
	l, _ := sess.Context().Value(learnerState).(*learner)
	if l == nil {
		return nil
	}
	m := roomModel{
		inner: ui.NewServed(l.ctx, l.cfg),
		l:     l,
		opts:  &s.opts,
		now:   time.Now,
	}
	m.last = m.now()
	opts := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithFPS(frameRate)}, bm.MakeOptions(sess)...)
	return tea.NewProgram(m, opts...)
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
	case idleCheckMsg:
		if idle := m.now().Sub(m.last); idle >= m.opts.Idle {
			m.l.reason = fmt.Sprintf("disconnected after %s without a key", m.opts.Idle)
			return m, tea.Quit
		}
		return m, m.idleCheck()
	case tea.KeyMsg:
		m.last = m.now()
		if n := len(string(msg.Runes)); msg.Paste && n > m.opts.MaxPaste {
			return m.forward(ui.NoticeMsg(fmt.Sprintf("paste refused: %d bytes, over the room's limit of %d (nothing was pasted)", n, m.opts.MaxPaste)))
		}
	case tea.MouseMsg:
		m.last = m.now()
	case tea.WindowSizeMsg:
		if msg.Width > m.opts.MaxWidth || msg.Height > m.opts.MaxHeight {
			w, h := min(msg.Width, m.opts.MaxWidth), min(msg.Height, m.opts.MaxHeight)
			m, cmd := m.forward(tea.WindowSizeMsg{Width: w, Height: h})
			m2, cmd2 := m.(roomModel).forward(ui.NoticeMsg(fmt.Sprintf("your terminal is %d×%d: the glass box draws at most %d×%d here", msg.Width, msg.Height, w, h)))
			return m2, tea.Batch(cmd, cmd2)
		}
	}
	return m.forward(msg)
}

func (m roomModel) forward(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	m.inner, cmd = m.inner.Update(msg)
	return m, cmd
}

func (m roomModel) View() string { return m.inner.View() }
