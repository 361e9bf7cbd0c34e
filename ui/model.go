package ui

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/payload"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// paneID names the four panes. The order is the tab order.
type paneID int

const (
	paneHistory paneID = iota
	paneDiagram
	paneTools
	panePayload
	numPanes
)

func (p paneID) title() string {
	switch p {
	case paneHistory:
		return "History"
	case paneDiagram:
		return "State machine"
	case paneTools:
		return "Tool calls"
	case panePayload:
		return "Raw payload"
	}
	return ""
}

// shortTitle is the pane's name on a narrow tab bar.
func (p paneID) shortTitle() string {
	switch p {
	case paneHistory:
		return "Hist"
	case paneDiagram:
		return "States"
	case paneTools:
		return "Tools"
	case panePayload:
		return "Raw"
	}
	return ""
}

// tabTitles are the names on the tab bar at width w: full names when they
// fit, short ones otherwise.
func tabTitles(w int) [numPanes]string {
	var full, short [numPanes]string
	n := 0
	for p := paneID(0); p < numPanes; p++ {
		full[p], short[p] = p.title(), p.shortTitle()
		n += len(full[p]) + 3
	}
	if n <= w {
		return full
	}
	return short
}

// runMode is how far the loop runs on its own after a keypress.
type runMode int

const (
	runOne       runMode = iota // one transition (space / n)
	runIteration                // to the next context_ready (i)
	runContinue                 // until idle, a breakpoint or a pause (c)
)

// Model is the glass box: a tea.Model. Build it with New; Run wraps it in a
// full-screen program.
type Model struct {
	cfg    Config
	eng    *loop.Engine
	person *Person
	th     theme.Theme
	keys   keyMap
	help   help.Model
	base   context.Context // parent of every step's context

	// Static facts read from the engine once, before any step runs.
	provider, model, backend string
	maxIter                  int

	width, height int
	ready         bool // a WindowSizeMsg has arrived

	inputFocused bool
	pane         paneID // the focused pane (and the tab shown in tabs mode)
	zoomed       bool

	input   textarea.Model
	spin    spinner.Model
	animate bool // spinner ticks; tests turn them off for stable frames
	ticking bool

	// What the transitions told us (the UI's own copy).
	live *liveState

	hist    *historyPane
	calls   *scrollState
	payload *payloadPane
	diag    *diagramPane

	// Driving the loop.
	busy       bool
	stepCtx    context.Context
	stepCancel context.CancelFunc
	stepDone   chan stepResult
	retries    chan loop.Retry // from the engine's OnRetry hook, never blocking it
	wire       chan tea.Msg    // the provider call's request and chunks as they happen
	inflight   *providers.Exchange
	run        runMode
	runKey     string // the key that started the current run ("n" guards the dialog's deny)
	runSteps   int    // transitions taken since the run started
	runModal   bool   // the current run needed a person
	pauseAsked bool

	confirm  *confirmModal
	ask      *askModal
	lessons  *lessonMenu
	helpOpen bool
	helpTop  int // first line of the help shown (it scrolls on small screens)

	notice      string // one line: what just happened ("cancelled: …")
	lessonName  string // the lesson offered on an empty input
	lessonSent  bool
	quitPending bool // a ctrl+c cancelled a step; the next one quits
}

// New builds the UI around cfg.Engine. It reads the engine's current state
// and history (a resumed session shows what it already holds), so call it
// before any Step runs.
func New(cfg Config) Model {
	th := theme.New(cfg.NoColor)
	m := Model{
		cfg:        cfg,
		eng:        cfg.Engine,
		person:     cfg.Person,
		th:         th,
		keys:       newKeyMap(),
		help:       help.New(),
		base:       context.Background(),
		backend:    cfg.Backend,
		animate:    true,
		live:       newLiveState(),
		hist:       newHistoryPane(),
		calls:      &scrollState{},
		payload:    newPayloadPane(payload.NewRenderer()),
		diag:       newDiagramPane(),
		lessonName: cfg.Lesson,
	}
	m.help.Styles.ShortKey = th.StatusKey
	m.help.Styles.FullKey = th.StatusKey
	m.help.Styles.ShortDesc = th.Help
	m.help.Styles.FullDesc = th.Help
	m.help.Styles.ShortSeparator = th.Help
	m.help.Styles.FullSeparator = th.Help

	m.retries = make(chan loop.Retry, 16)
	m.wire = make(chan tea.Msg, 1024)
	if m.eng != nil {
		retries := m.retries
		m.eng.SetOnRetry(func(r loop.Retry) {
			select {
			case retries <- r:
			default: // the UI is behind; the step's record still lists every retry
			}
		})
		if p := m.eng.Provider(); p != nil {
			m.provider, m.model = p.Name(), p.Model()
		}
		if m.backend == "" {
			m.backend = m.eng.Backend()
		}
		m.maxIter = m.eng.MaxIterations()
		m.live.state = m.eng.State()
		m.live.iteration = m.eng.Iteration()
		for _, msg := range m.eng.History() {
			m.live.addMessage(m.hist, msg)
		}
	} else {
		m.live.state = loop.WaitingForEvent
	}

	m.input = newInput(th)
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(th.Warning))
	m.addWelcome()
	m.inputFocused = true
	m.input.Focus()
	m.updatePlaceholder()
	return m
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

// Init starts nothing: the learner types first.
func (m Model) Init() tea.Cmd { return nil }

// Update routes each message to the handler for its concern.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.handleResize(msg)
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case stepDoneMsg:
		return m.handleStepDone(msg)
	case personRequestMsg:
		return m.handlePersonRequest(msg)
	case retryMsg:
		return m.handleRetry(msg)
	case wireRequestMsg, wireChunkMsg:
		return m.handleWire(msg)
	case spinner.TickMsg:
		if !m.busy || !m.animate {
			m.ticking = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	}
	if m.inputFocused {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

// focusInput gives the keyboard to the input line.
func (m *Model) focusInput() tea.Cmd {
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
	if l, ok := m.currentLesson(); ok && !m.lessonSent {
		m.input.Placeholder = "Enter: send the " + l.Name + " lesson — " + firstLineOf(l.Request)
		return
	}
	m.input.Placeholder = "type a request · Enter sends · alt+enter new line · l lessons"
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
