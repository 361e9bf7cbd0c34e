package ui

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/glassbox-dev/glassbox/ui/theme"
)

// runMode is how far the loop runs on its own after a keypress.
type runMode int

const (
	runOne       runMode = iota // one transition (space / n)
	runIteration                // to the next context_ready (i)
	runContinue                 // until idle, a breakpoint or a pause (c)
)

// Model is the glass box: a tea.Model. Build it with New; Run wraps it in a
// full-screen program.
//
// It holds one run (compare mode: two) and what is not a run's: the layout,
// which pane and which run have the keyboard, the input line that feeds every
// run, the lessons menu and the help overlay.
type Model struct {
	cfg   Config
	runs  []*runView
	strip *stripPane // compare mode's comparison strip
	th    theme.Theme
	keys  keyMap
	// Each dialog's keys, as data: the handlers match them and the help
	// line and the dialogs draw from them.
	confirmKeys confirmKeys
	askKeys     askKeys
	lessonKeys  lessonKeys
	helpKeys    helpKeys
	quitKeys    quitKeys
	forkKeys    forkKeys
	ontoKeys    ontoKeys
	help        help.Model
	drawnHelp   *helpMemo // the key help, drawn once per width and keys

	width, height int
	ready         bool // a WindowSizeMsg has arrived

	inputFocused bool
	pane         paneID // the focused pane (and the tab shown in tabs mode)
	zoomed       bool
	// focus is the run the keys act on alone (compare mode, tab), or -1:
	// every run. shown is the run drawn when the screen has room for one.
	focus, shown int

	input   textarea.Model
	spin    spinner.Model
	animate bool // spinner ticks; tests turn them off for stable frames
	ticking bool

	// stack holds the open dialogs, the last on top (see top for the
	// one precedence rule).
	stack []dialog
	// exec hands the terminal to a program (the what-if editor) and calls
	// back when it ends: tea.ExecProcess; tests run the program directly.
	exec    func(*exec.Cmd, tea.ExecCallback) tea.Cmd
	helpTop scroller // the help overlay scrolls on small screens

	notice      string // one line: what the last key did ("lesson tour: …")
	lessonName  string // the lesson offered on an empty input
	lessonSent  bool
	quitPending bool         // a ctrl+c cancelled a step; the next one quits
	pred        predictState // predict mode (P, --predict)
	tap         *tapController
}

// New builds the UI around cfg's engine (or cfg.Runs' engines). It reads
// each engine's current state and history (a resumed session shows what it
// already holds), so call it before any Step runs.
func New(cfg Config) Model {
	th := theme.New(cfg.NoColor)
	m := Model{
		cfg:        cfg,
		th:         th,
		keys:       newKeyMap(cfg.Lang),
		askKeys:    newAskKeys(cfg.Lang),
		lessonKeys: newLessonKeys(cfg.Lang),
		quitKeys:   newQuitKeys(cfg.Lang),
		forkKeys:   newForkKeys(cfg.Lang),
		ontoKeys:   newOntoKeys(cfg.Lang),
		help:       help.New(),
		drawnHelp:  &helpMemo{},
		animate:    true,
		focus:      -1,
		exec:       tea.ExecProcess,
		lessonName: cfg.Lesson,
		pred:       predictState{lang: cfg.Lang},
	}
	m.confirmKeys, m.helpKeys = newConfirmKeys(m.keys), newHelpKeys(m.keys)
	if cfg.Tap != nil {
		m.tap = &tapController{src: cfg.Tap.Source, now: time.Now}
	}
	runs := cfg.Runs
	if len(runs) == 0 {
		runs = []RunConfig{{Engine: cfg.Engine, Person: cfg.Person, Backend: cfg.Backend,
			BackendReason: cfg.BackendReason, Banner: cfg.Banner, Workspace: cfg.Workspace}}
	}
	for i, rc := range runs {
		m.runs = append(m.runs, newRunView(i, rc, cfg.Lang))
	}
	m.strip = &stripPane{runs: m.runs}
	m.help.Styles.ShortKey = th.StatusKey
	m.help.Styles.FullKey = th.StatusKey
	m.help.Styles.ShortDesc = th.Help
	m.help.Styles.FullDesc = th.Help
	m.help.Styles.ShortSeparator = th.Help
	m.help.Styles.FullSeparator = th.Help
	m.help.Styles.Ellipsis = th.Help // help's own default is grey, even with NO_COLOR

	m.input = newInput(th)
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(th.Warning))
	m.addWelcome()
	for i, r := range m.runs {
		r.session = cfg.Session
		r.observe, r.observeWire, r.status, r.telemetry = cfg.OnTransition, cfg.OnWire, cfg.Status, cfg.Telemetry
		if m.tap != nil {
			r.tapStatus, r.live.outside = m.tap.status, true
		}
		if cfg.Follow != nil || cfg.Tap != nil {
			for _, t := range runs[i].Past {
				r.record(t)
			}
			runs[i].Past = nil
		}
		r.loadPast(runs[i].Past)
		for _, n := range runs[i].Notes {
			r.history.note(n)
		}
		if len(runs[i].Past) > 0 {
			m.lessonSent = true // a resumed session is past its first request
			r.history.note(cfg.Lang.F(
				"resumed: the %d step%s above %s the session's past ([ and ] move through them, f forks from one); space goes on from step #%d", len(runs[i].Past), plural(len(runs[i].Past)), isAre(len(runs[i].Past)), runs[i].Past[len(runs[i].Past)-1].Seq))
		}
	}
	// The past now lives in the runs' own records: the model keeps no
	// second list of a long session's steps.
	m.cfg.Runs = slices.Clone(m.cfg.Runs)
	for i := range m.cfg.Runs {
		m.cfg.Runs[i].Past = nil
	}
	m.refreshWelcome() // a resumed session offers no first lesson
	m.startPredict()
	m.inputFocused = cfg.Follow == nil && cfg.Tap == nil // a follower, a tap, have nothing to send
	if m.inputFocused {
		m.input.Focus()
	}
	m.updatePlaceholder()
	if m.compare() {
		m.pane = panePayload // the raw payloads are what compare mode is for
	}
	return m
}

// compare reports whether the glass box shows two runs side by side.
func (m Model) compare() bool { return len(m.runs) > 1 }

// cur is the run whose panes the screen shows when it shows one: the
// focused run, else the one last shown.
func (m Model) cur() *runView {
	if m.focus >= 0 && m.focus < len(m.runs) {
		return m.runs[m.focus]
	}
	return m.runs[min(max(m.shown, 0), len(m.runs)-1)]
}

// targets are the runs a stepping key acts on: the focused one, or all.
func (m Model) targets() []*runView {
	if m.focus >= 0 && m.focus < len(m.runs) {
		return m.runs[m.focus : m.focus+1]
	}
	return m.runs
}

// busy reports whether any run has a step in flight.
func (m Model) busy() bool {
	for _, r := range m.runs {
		if r.busy {
			return true
		}
	}
	return false
}

// dialogRun is the run whose dialog (approval or question) is on screen:
// the focused run's if it has one, else the first run waiting for the
// person whose dialog is not hidden.
func (m Model) dialogRun() *runView {
	if r := m.cur(); m.focus >= 0 && r.dialogShown() {
		return r
	}
	for _, r := range m.runs {
		if r.dialogShown() {
			return r
		}
	}
	return nil
}

// hiddenDialogRun is the run whose dialog esc hid, if any: its step still
// waits for the person.
func (m Model) hiddenDialogRun() *runView {
	for _, r := range m.targets() {
		if r.waitsForPerson() && r.hidden {
			return r
		}
	}
	return nil
}

// newInput is the input line: Enter sends, alt+enter or ctrl+j breaks the
// line (v1 has no shift+enter).
func newInput(th theme.Theme) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "› "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	ta.SetHeight(1)
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.FocusedStyle.CursorLine = ta.FocusedStyle.CursorLine.UnsetBackground()
	ta.FocusedStyle.Prompt = th.Bold
	ta.BlurredStyle.Prompt = th.Muted
	ta.FocusedStyle.Placeholder = th.Muted
	ta.BlurredStyle.Placeholder = th.Muted
	// Every style from the theme, none of textarea's built-in greys: with
	// NO_COLOR the input must carry no colour either.
	ta.FocusedStyle.Text = lipgloss.NewStyle()
	ta.BlurredStyle.Text = th.Muted
	ta.BlurredStyle.CursorLine = th.Muted
	for _, st := range []*textarea.Style{&ta.FocusedStyle, &ta.BlurredStyle} {
		st.EndOfBuffer, st.LineNumber, st.CursorLineNumber = th.Muted, th.Muted, th.Muted
	}
	return ta
}

// Init starts nothing but reading back, for a resumed session, the payload
// of the step shown, and measuring the session's size: the learner types
// first. A follower starts listening to the run it follows; a glass box
// with a status segment, to what changes it.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.fetchPayloads(), m.followCmd(), m.changedCmd(), m.tapCmd()}
	for _, r := range m.runs {
		cmds = append(cmds, r.measureSize(true)) // for the health line
		if r.listens {
			cmds = append(cmds, r.busCmd()) // requests from outside, any time
		}
	}
	return tea.Batch(cmds...)
}

// Update routes each message to the handler for its concern: the run a
// step message names, the key router, the layout.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.handleResize(msg)
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case forkDoneMsg:
		return m.forkDone(msg)
	case whatIfReadyMsg:
		return m.whatIfReady(msg)
	case whatIfDoneMsg:
		if msg.hold > 0 {
			return m.tapEdited(msg)
		}
		return m.handleRunMsg(msg)
	case tapMsg:
		return m.tapped(msg)
	case tapTickMsg:
		m.tap.ticking = false
		return m, m.tapTick()
	case runMsg:
		return m.handleRunMsg(msg)
	case busArrivedMsg:
		return m.busArrived(msg)
	case busCallMsg:
		m.notice = m.cfg.Lang.F("the lesson's request could not be sent over the MCP bus: %v", msg.err)
		return m, nil
	case NoticeMsg:
		return m.notify(msg)
	case followMsg:
		return m.followed(msg)
	case changedMsg:
		return m, m.changedCmd() // the frame is drawn again: Config.Status is read anew
	case spinner.TickMsg:
		return m.turnSpinner(msg)
	}
	if m.inputFocused {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

// turnSpinner turns the spinner while a step works; it stops ticking when none
// does (or animation is off).
func (m Model) turnSpinner(msg spinner.TickMsg) (tea.Model, tea.Cmd) {
	if !m.busy() || !m.animate {
		m.ticking = false
		return m, nil
	}
	var cmd tea.Cmd
	m.spin, cmd = m.spin.Update(msg)
	return m, cmd
}

// handleRunMsg routes a message from a run's step to that run, then lets
// the panes follow what the step did.
func (m Model) handleRunMsg(msg runMsg) (tea.Model, tea.Cmd) {
	id := msg.runID()
	if id < 0 || id >= len(m.runs) {
		return m, nil
	}
	r := m.runs[id]
	if p, ok := msg.(personRequestMsg); ok && p.req != nil {
		// The person's dialog goes on top; menus opened before it close.
		closeKind[*lessonMenu](&m)
		closeKind[helpDialog](&m)
	}
	cmd := r.update(msg)
	switch msg := msg.(type) {
	case stepDoneMsg:
		// What the step did supersedes what the last key said
		// ("cancelling…", "pausing…").
		m.notice = ""
		m.predicted(r, msg.err)
		if errors.Is(msg.err, context.Canceled) || errors.Is(msg.err, context.DeadlineExceeded) {
			m.quitPending = true
		}
		m.clampScrolls() // the panes follow what the step did
	case exchangesMsg, previewMsg:
		m.clampScrolls()
	}
	if r.busy {
		cmd = tea.Batch(cmd, m.tick())
	}
	return m, cmd
}

// tick starts the spinner if it is not turning yet.
func (m *Model) tick() tea.Cmd {
	if !m.animate || m.ticking {
		return nil
	}
	m.ticking = true
	return m.spin.Tick
}

// step starts mode on every target run that can take a step; the key that
// started it is by. In compare mode a run that is idle or waits for the
// person sits this one out and says so.
func (m *Model) step(mode runMode, by string) tea.Cmd {
	m.quitPending = false
	var cmds []tea.Cmd
	for _, r := range m.targets() {
		if m.compare() && m.focus < 0 && (r.idle() || r.busy) {
			if r.busy {
				r.notice = r.lang.T("busy: waits for its step in flight")
			} else {
				r.notice = r.lang.T("idle: waits for the other run")
			}
			continue
		}
		cmds = append(cmds, r.startRun(mode, by))
	}
	if len(cmds) == 0 && m.compare() && m.focus < 0 {
		// Both idle: let each say so in its own words.
		for _, r := range m.runs {
			cmds = append(cmds, r.startRun(mode, by))
		}
	}
	cmds = append(cmds, m.tick())
	return tea.Batch(cmds...)
}

// focusInput gives the keyboard to the input line.
func (m *Model) focusInput() tea.Cmd {
	if m.cfg.Follow != nil {
		m.notice = m.readOnly()
		return nil
	}
	m.inputFocused = true
	return m.input.Focus()
}

// focusPane gives the keyboard to a pane (the stepper keys work there).
func (m *Model) focusPane(p paneID) {
	m.inputFocused = false
	m.input.Blur()
	m.pane = p
}

// updatePlaceholder offers the starting lesson until it has been sent.
func (m *Model) updatePlaceholder() {
	if m.cfg.Tap != nil {
		m.input.Placeholder = m.cfg.Lang.T("a tap sends nothing: the agent's person types in the agent's own terminal · space steps · c runs · q quits")
		return
	}
	if m.cfg.Follow != nil {
		m.input.Placeholder = m.cfg.Lang.F("read-only: you follow the %s's run · [ ] back in time · space catches up · q quits", m.whom())
		return
	}
	if l, ok := m.currentLesson(); ok && !m.lessonSent {
		m.input.Placeholder = m.cfg.Lang.F("Enter: send the %s lesson — %s", l.Name, firstLineOf(l.Request))
		return
	}
	m.input.Placeholder = m.cfg.Lang.T("type a request · Enter sends · alt+enter new line · esc, then l: lessons")
}

func (m Model) currentLesson() (Lesson, bool) {
	for _, l := range m.cfg.Lessons {
		if l.Name == m.lessonName && strings.TrimSpace(l.Request) != "" {
			return l, true
		}
	}
	return Lesson{}, false
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
