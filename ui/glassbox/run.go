// Package glassbox is glassbox's Bubble Tea program: the full-screen glass
// box around the agent loop. It draws the History, State machine, Tool calls and
// Raw payload panes, a status bar and an input line, and drives the engine
// one transition per keypress (space), one iteration (i) or until something
// needs a person (c). Everything it shows comes from the loop.Transition
// records the engine returns; the UI keeps its own copy and never reads
// engine state while a step is in flight.
package glassbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
)

// Lesson is one bundled offline lesson, as the lessons menu lists it.
type Lesson struct {
	Name    string // "tour"
	Title   string // "A tour: list, read, explain"
	Request string // what the learner sends to start it
	// Dialects, when set, are the only dialects (backend.Showing) that can show
	// what the lesson teaches: the menu offers it only to a run of one.
	Dialects []string
	// FromBus: the request arrives over the MCP bus, sent by a client
	// inside glassbox through each run's Bus (the mcp-bus lesson).
	FromBus bool
}

// Config is what the UI needs from main.
type Config struct {
	// Engine is the agent loop the UI drives. Required.
	Engine *loop.Engine
	// Person must be the same Person the engine (and its ask_user tool)
	// were built with: it is how confirmations and questions reach the UI.
	Person *Person
	// Banner is a one-line description of the provider and backend
	// (backend.Backend.Describe): "PROVIDER MODEL · offline: REASON".
	Banner string
	// Backend is "live", "offline" or "replay"; BackendReason says why,
	// and BackendWhy is that reason as its dialect gave it.
	Backend       string
	BackendReason string
	BackendWhy    dialect.Reason
	// Workspace is the folder the tools may touch, shown to the learner.
	Workspace string
	// Lessons are the bundled lessons for the lessons menu (l).
	Lessons []Lesson
	// Lesson is the name of the starting lesson: its request is one
	// keypress (Enter on an empty input) away.
	Lesson string
	// Lang is the language of every sentence the glass box shows
	// (docs/architecture.md, "Languages"): --lang, else the locale; a
	// served learner's from the serve side. The zero value is English.
	// State, edge, rule and tool names and the payloads are the protocol
	// and stay as they are.
	Lang lang.Lang
	// NoColor drops every colour (NO_COLOR).
	NoColor bool
	// Sandbox says whether execute_command runs under the kernel's sandbox:
	// "on — …" or "off — reason" (tools.SandboxStatus).
	Sandbox string
	// Dialects are the dialects a run can fork onto (F), in menu order.
	Dialects []string
	// Resume is the command that reopens this session after quitting
	// (e.g. "glassbox --resume 20261124-150405-3fa9"); "" when the runs
	// keep no session, and quitting loses the steps on screen.
	Resume string
	// Session is the session file the runs write (compare mode: both runs,
	// one file), "" when they keep none: X writes a handout of the step on
	// screen from it, and the health line measures its size on disk.
	Session string
	// Secrets are the runs' own keys, masked on a handout once more.
	Secrets []string
	// Runs, when it holds two runs, is compare mode: one input feeds both,
	// the keys step both, the screen sets them side by side. Engine, Person,
	// Banner, Backend, BackendReason and Workspace are then ignored.
	Runs []RunConfig
	// OnTransition, when set, hears every transition a run takes here
	// (on the UI's goroutine, in order): a workshop broadcasts the
	// instructor's run with it. It must not block.
	OnTransition func(loop.Transition)
	// OnWire, when set, hears a run's model call in flight each time it
	// grows (the request sent, each chunk of the reply), as it stands: a
	// workshop streams it to the followers. Same rules as OnTransition.
	OnWire func(providers.Exchange)
	// Telemetry, when set, counts the spans sent to an OpenTelemetry
	// collector (--otlp) and those dropped: the status bar shows them. It
	// is read at every frame and must be cheap.
	Telemetry func() telemetry.Stats
	// Predict starts in predict mode (--predict; P toggles it): each step
	// first asks which edge the learner expects.
	Predict bool
	// Breakpoints are in force on every run from the start (--break,
	// loop/breakpoint): c stops where one begins to match.
	Breakpoints []breakpoint.Breakpoint
	// Follow makes the glass box a read-only view of another's run.
	Follow *Follow
	// Tap makes the glass box a tap's: another agent's calls, held and
	// stepped here (glassbox tap).
	Tap *Tap
	// Status, when set, is one more status bar segment (key, value), read
	// at every frame: how many follow the instructor, whom a follower follows.
	Status func() (key, value string)
	// Changed, when set, says Status has changed: the frame is drawn again.
	Changed <-chan struct{}
	// Room, when set, is a glass box served in a room (glassbox serve):
	// its scores kept across connections, its handouts' address, and the
	// instructor's roster.
	Room *Room
}

// role is who the glass box is for, from what it was given (ui/role): a
// tap holds another agent's calls; a reader steps through a recording (glassbox open); a follower follows
// another's run; in a room, the instructor has the
// roster and a learner does not; anyone else is on their own terminal.
func (c Config) role() role.Role {
	switch {
	case c.Tap != nil:
		return role.Tapper
	case c.Follow != nil && c.Follow.Pull != nil:
		return role.Reader
	case c.Follow != nil:
		return role.Follower
	case c.Room != nil && c.Room.Roster != nil:
		return role.Instructor
	case c.Room != nil:
		return role.Learner
	}
	return role.Local
}

// runnable says what cfg lacks to run: an engine for each run, unless
// the runs are another's (a follower's, a tap's).
func (cfg Config) runnable() error {
	if cfg.Engine == nil && len(cfg.Runs) == 0 {
		return errors.New("glassbox.Run: Config.Engine (or Config.Runs) is required")
	}
	for i, rc := range cfg.Runs {
		if rc.Engine == nil && cfg.Follow == nil && cfg.Tap == nil { // a follower or a tap draws another's run
			return fmt.Errorf("glassbox.Run: Config.Runs[%d].Engine is required", i)
		}
	}
	return nil
}

// Run opens the full-screen UI and returns when the person quits or ctx
// ends. Nothing is printed to stdout besides the UI itself.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.runnable(); err != nil {
		return err
	}
	if cfg.NoColor && termenv.EnvColorProfile() == termenv.Ascii && isTerminal() {
		// NO_COLOR asks for no colour, not for no emphasis: lipgloss reads
		// it as "plain text" and would drop the bold and reverse video the
		// no-colour theme uses to mark the current state and the status
		// bar. The theme sets no colours, so ANSI emits only emphasis.
		lipgloss.SetColorProfile(termenv.ANSI)
	}
	logPath, err := LogPath()
	if err != nil {
		return errors.New(cfg.Lang.F("cannot open a log file (%v); start it with XDG_STATE_HOME pointing to a writable folder", err))
	}
	logFile, err := tea.LogToFile(logPath, "")
	if err != nil {
		return errors.New(cfg.Lang.F("cannot open the log file %s: %v", logPath, err))
	}
	defer func() {
		log.SetOutput(os.Stderr)
		logFile.Close()
	}()
	TuneMemory(os.Getenv)
	m := NewServed(ctx, cfg)
	p := tea.NewProgram(m,
		tea.WithAltScreen(),
		tea.WithMouseCellMotion(),
		tea.WithContext(ctx),
	)
	final, err := p.Run()
	if fm, ok := final.(*Model); ok {
		fm.Stop()
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // the context ended (e.g. SIGINT from outside): a normal exit
	}
	if err != nil {
		return fmt.Errorf("%w (log: %s)", err, logPath)
	}
	return nil
}

// Width is w's width in columns when it is a terminal, else 0.
func Width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	cols, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return cols
}

// IsTerminal reports whether w is a terminal: the glass box needs one.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// isTerminal reports whether standard output is a terminal (never style a pipe).
func isTerminal() bool { return term.IsTerminal(os.Stdout.Fd()) }

// tuiGrace is how long the TUI gets to end by itself on SIGINT or SIGTERM
// before its context is cancelled.
const tuiGrace = time.Second

// Context is the context the TUI runs under, for a front end whose ctx
// ends on a signal. Bubble Tea handles SIGINT and SIGTERM itself by
// quitting; cancelling its context at the same moment can deadlock its
// shutdown (v1.3.10: the signal handler blocks sending its quit message to
// a program that is being killed). So those two cancel the TUI only if it
// has not ended within tuiGrace; SIGHUP, which Bubble Tea does not handle,
// cancels it at once. Either way ctx — what the caller checks afterwards —
// says which signal ended the run.
func Context(ctx context.Context) context.Context {
	tui, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-ctx.Done()
		if cause := context.Cause(ctx); !strings.Contains(cause.Error(), syscall.SIGHUP.String()) {
			time.Sleep(tuiGrace)
		}
		cancel(context.Cause(ctx))
	}()
	return tui
}
