// Package headless is `glassbox run`: one event from the cli source, stepped
// until the engine is idle, every transition printed — the human trace or
// JSONL. In compare mode two runs get the same event and are stepped in
// lockstep, one transition each in turn. Confirmations and questions are
// read from standard input, one line each. It imports no Bubble Tea, so
// scripts and CI never need a terminal.
package headless

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/anatomy"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Outcome is how a headless run ended; main turns it into an exit code.
// Outcomes are ordered from best to worst, so two runs end with the worse.
type Outcome int

const (
	Answered       Outcome = iota // the answer was delivered
	Halted                        // the iteration limit stopped the loop
	ProviderFailed                // the provider failed, or the run could not go on
)

func (o Outcome) String() string {
	return [...]string{"answered", "halted", "provider_failed"}[o]
}

// Options shape the output.
type Options struct {
	JSON    bool   // JSONL on stdout instead of the human trace
	Version string // shown in the human trace's first line
	// Lang is the language of the human trace's sentences and of what is
	// said on stderr; the JSONL trace, and every name in the human trace
	// (state, edge, rule, tool), are the same in every language.
	Lang lang.Lang
	// Width is the terminal's width (0 when stdout is not a terminal). In
	// compare mode a width of SideBySide or more prints the two traces in
	// two columns; otherwise each line carries its run's name.
	Width int
	// Wait, when set, is called each time every run is idle: it waits for
	// another event (one from the MCP bus) and reports whether one came;
	// false ends the run. Without it the run ends at the first idle.
	Wait func(context.Context) bool
}

// SideBySide is the narrowest terminal that gets two columns in compare mode.
const SideBySide = 120

// tally is what a run's summary record counts.
type tally struct {
	outcome      Outcome
	transitions  int
	calls        int
	inputTokens  int
	outputTokens int
	latencyMS    int64
	done         bool
}

// Run feeds prompt to every run's engine and steps them until all are idle.
// The trace goes to stdout; the one-line reason for a failure goes to stderr
// too, so a person running a script sees it while the trace stays clean.
func Run(ctx context.Context, runs []*agentrun.Run, prompt string, o Options, stdout, stderr io.Writer) Outcome {
	p := printer{o: o, out: stdout, runs: runs, anatomy: map[string]*anatomy.Tracker{}}
	p.header()
	if err := p.resumed(stderr); err != nil {
		p.writeFailed(stderr, err)
		return ProviderFailed
	}
	tallies := make([]tally, len(runs))
	for _, r := range runs {
		// A resumed session without a new request goes on with what it
		// was doing (and what was queued).
		if prompt != "" {
			r.Engine.Submit(loop.Event{Source: "cli", Type: "user_input", Data: prompt})
		}
	}
	if !p.drive(ctx, tallies, stderr) {
		return ProviderFailed
	}
	worst := Answered
	for i := range runs {
		worst = max(worst, tallies[i].outcome)
	}
	if len(runs) > 1 {
		if err := p.summaries(tallies); err != nil {
			p.writeFailed(stderr, err)
			return ProviderFailed
		}
	}
	return worst
}

// drive steps the runs a round at a time until every one is idle (with
// Options.Wait: until it says no more work comes, or a run on the bus is
// stopped while it waits); false when a run stopped or a round could not be
// written (already said on stderr).
func (p *printer) drive(ctx context.Context, tallies []tally, stderr io.Writer) bool {
	for {
		if p.o.Wait != nil && ctx.Err() != nil && allIdle(p.runs) {
			return true // a run on the bus, stopped while it waited for work: nothing was cut short
		}
		round, stepped, ok := p.stepAll(ctx, tallies, stderr)
		if !ok {
			return false
		}
		if !stepped {
			if p.o.Wait == nil || !p.o.Wait(ctx) {
				return true
			}
			for i := range tallies {
				tallies[i].done = false
			}
			continue
		}
		if err := p.round(round); err != nil {
			p.writeFailed(stderr, err)
			return false
		}
	}
}

// stepAll takes one transition of every run that is not done: the round's
// transitions (nil for a run that had none), whether any run stepped, and
// false when a run stopped.
func (p *printer) stepAll(ctx context.Context, tallies []tally, stderr io.Writer) (round []*loop.Transition, stepped, ok bool) {
	round = make([]*loop.Transition, len(p.runs))
	for i, r := range p.runs {
		if tallies[i].done {
			continue
		}
		t, ok := p.step(ctx, r, &tallies[i], stderr)
		if !ok {
			return nil, false, false
		}
		if t != nil {
			stepped, round[i] = true, t
		}
	}
	return round, stepped, true
}

// allIdle reports whether every run waits for an event with none queued.
func allIdle(runs []*agentrun.Run) bool {
	for _, r := range runs {
		if !r.Engine.Idle() {
			return false
		}
	}
	return true
}

// step takes one transition of run r and tallies it: nil when the run is
// idle (it is done), ok false when the run stopped (cancelled from outside,
// or its step failed; already said on stderr and in the trace).
func (p *printer) step(ctx context.Context, r *agentrun.Run, tl *tally, stderr io.Writer) (*loop.Transition, bool) {
	if ctx.Err() != nil {
		// Stopped from outside (Ctrl-C, SIGTERM, SIGHUP): no further
		// step is taken, not even one that needs no context; the trace
		// ends with an interrupted record.
		p.interrupted(p.runs, context.Cause(ctx), stderr)
		return nil, false
	}
	t, err := r.Engine.Step(ctx)
	if errors.Is(err, loop.ErrIdle) {
		tl.done = true
		return nil, true
	}
	if err != nil {
		if ctx.Err() != nil {
			p.interrupted(p.runs, context.Cause(ctx), stderr)
		} else {
			fmt.Fprintf(stderr, "glassbox run: %s%s\n", prefix(r), p.o.Lang.F("interrupted in %s: %s", r.Engine.State(), p.o.Lang.Error(err)))
		}
		return nil, false
	}
	tl.add(t)
	reportFailure(p.o.Lang, stderr, r, t)
	return &t, true
}

func (t *tally) add(tr loop.Transition) {
	t.transitions++
	if tr.LLM != nil {
		t.calls++
		t.inputTokens += tr.LLM.Usage.InputTokens
		t.outputTokens += tr.LLM.Usage.OutputTokens
		t.latencyMS += tr.LLM.LatencyMS
	}
	switch tr.Edge {
	case loop.EdgeMaxIterations:
		t.outcome = max(t.outcome, Halted)
	case loop.EdgeLLMFailure:
		if tr.Error != nil && tr.Error.Kind == loop.KindRepeatedFailure {
			t.outcome = max(t.outcome, Halted) // the loop stopped it, not the provider
		} else {
			t.outcome = ProviderFailed
		}
	case loop.EdgeReported:
		// A resumed session may start in HALTED: the report says why.
		if tr.Error != nil && tr.Error.Kind == "llm_failure" {
			t.outcome = ProviderFailed
		} else {
			t.outcome = max(t.outcome, Halted)
		}
	}
}

// reportFailure says on stderr why a run stopped short.
func reportFailure(l lang.Lang, stderr io.Writer, r *agentrun.Run, t loop.Transition) {
	var said string
	switch t.Edge {
	case loop.EdgeMaxIterations:
		n := r.Engine.MaxIterations()
		said = l.F("halted: the iteration limit (%s for one request) was reached", plural(n, l.F("%d model call", n), l.F("%d model calls", n)))
	case loop.EdgeLLMFailure:
		switch {
		case t.Error != nil && t.Error.Kind == loop.KindRepeatedFailure:
			said = l.F("halted: %s", loop.Printable(t.Error.Message))
		case t.Error != nil:
			said = l.F("the provider failed: %s", loop.Printable(failureMessage(l, t)))
		}
	}
	if said != "" {
		fmt.Fprintf(stderr, "glassbox run: %s%s\n", prefix(r), said)
	}
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeFailed says on stderr that the trace could not be written.
func (p printer) writeFailed(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "glassbox run: %s\n", p.o.Lang.F("writing the trace: %s", p.o.Lang.Error(err)))
}

// prefix is "[NAME] " for a compare run (the run's name), "" for a single run.
func prefix(r *agentrun.Run) string {
	if r.Config.Name == "" {
		return ""
	}
	return "[" + r.Config.Name + "] "
}

// printer writes the trace of one or two runs.
type printer struct {
	o    Options
	out  io.Writer
	runs []*agentrun.Run
	// anatomy follows each run's model calls for the --json records'
	// llm.anatomy, by run name.
	anatomy map[string]*anatomy.Tracker
}

// dissect adds the anatomy of a model call's request to its record: the
// exchange that answered (the last; earlier ones were retried).
func (p printer) dissect(t *loop.Transition) {
	if t.LLM == nil || len(t.Exchanges) == 0 || p.anatomy == nil {
		return
	}
	tr := p.anatomy[t.Run]
	if tr == nil {
		tr = anatomy.NewTracker(backend.Wire())
		p.anatomy[t.Run] = tr
	}
	llm := *t.LLM
	llm.Anatomy = tr.Record(t.Exchanges[len(t.Exchanges)-1])
	t.LLM = &llm
}

func (p printer) sideBySide() bool { return len(p.runs) == 2 && p.o.Width >= SideBySide }

func (p printer) header() {
	if p.o.JSON {
		return
	}
	l := p.o.Lang
	if len(p.runs) == 1 {
		r := p.runs[0]
		fmt.Fprintf(p.out, "glassbox %s · %s\n%s\n%s\n", p.o.Version, r.Backend.Describe(), l.F("workspace: %s", r.WorkspaceLabelIn(l.F)), l.F("sandbox: %s", l.Sandbox(r.Sandbox())))
		for _, n := range r.Notes {
			fmt.Fprintln(p.out, l.Error(n))
		}
		return
	}
	var names []string
	for _, r := range p.runs {
		names = append(names, r.Config.Name)
	}
	fmt.Fprintf(p.out, "glassbox %s · %s\n", p.o.Version, l.F("compare %s: the same request, stepped in lockstep", strings.Join(names, " | ")))
	for _, r := range p.runs {
		fmt.Fprintf(p.out, "%s%s\n%s%s\n", prefix(r), r.Backend.Describe(), prefix(r), l.F("workspace: %s", r.WorkspaceLabelIn(l.F)))
	}
	fmt.Fprintf(p.out, "%s\n", l.F("sandbox: %s", l.Sandbox(p.runs[0].Sandbox())))
	if p.sideBySide() {
		col := (p.o.Width - 3) / 2
		fmt.Fprint(p.out, columns(p.runs[0].Backend.Dialect.Label, p.runs[1].Backend.Dialect.Label, p.o.Width))
		fmt.Fprintln(p.out, strings.Repeat("─", col)+"─┼─"+strings.Repeat("─", col))
	}
}

// round prints the transitions one lockstep round took (nil where a run
// was already idle).
func (p printer) round(ts []*loop.Transition) error {
	if p.o.JSON {
		for _, t := range ts {
			if t != nil {
				p.dissect(t)
				if err := loop.WriteJSON(p.out, *t); err != nil {
					return err
				}
			}
		}
		return nil
	}
	texts := make([]string, len(ts))
	for i, t := range ts {
		if t != nil {
			texts[i] = loop.HumanIn(*t, sayIn(p.o.Lang))
		}
	}
	if p.sideBySide() {
		_, err := io.WriteString(p.out, columns(texts[0], texts[1], p.o.Width))
		return err
	}
	for i, text := range texts {
		if text == "" {
			continue
		}
		if _, err := fmt.Fprintln(p.out, prefixLines(prefix(p.runs[i]), text)); err != nil {
			return err
		}
	}
	return nil
}

// interrupted ends every run's trace with an interrupted record, on stdout
// and in --trace, and says on stderr where each run stopped.
func (p printer) interrupted(runs []*agentrun.Run, cause error, stderr io.Writer) {
	for _, r := range runs {
		rec := r.Interrupted(cause)
		fmt.Fprintf(stderr, "glassbox run: %s%s\n", prefix(r), p.o.Lang.F("interrupted in %s: %s", rec.Interrupted.State, rec.Interrupted.Cause))
		if p.o.JSON {
			_ = loop.WriteInterruption(p.out, rec)
		} else {
			fmt.Fprintln(p.out, prefixLines(prefix(r), loop.HumanInterruptionIn(rec, p.o.Lang.F)))
		}
	}
}

// summaries end a compare run: one record per run.
func (p printer) summaries(tallies []tally) error {
	for i, r := range p.runs {
		t := tallies[i]
		if p.o.JSON {
			line, err := json.Marshal(summaryRecord{Run: r.Config.Name, Summary: summary{
				Outcome: t.outcome.String(), Backend: r.Backend.Kind, Transitions: t.transitions, ModelCalls: t.calls,
				InputTokens: t.inputTokens, OutputTokens: t.outputTokens, LatencyMS: t.latencyMS,
			}})
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(p.out, "%s\n", line); err != nil {
				return err
			}
			continue
		}
		l := p.o.Lang
		if _, err := fmt.Fprintf(p.out, "%s%s · %s · %s · %s\n", prefix(r), t.outcome,
			plural(t.transitions, l.F("%d transition", t.transitions), l.F("%d transitions", t.transitions)),
			plural(t.calls, l.F("%d model call", t.calls), l.F("%d model calls", t.calls)),
			l.F("tokens %d in / %d out · %d ms waiting for the model", t.inputTokens, t.outputTokens, t.latencyMS)); err != nil {
			return err
		}
	}
	return nil
}

type summaryRecord struct {
	Run     string  `json:"run"`
	Summary summary `json:"summary"`
}

type summary struct {
	Outcome      string `json:"outcome"` // answered, halted, provider_failed
	Backend      string `json:"backend"`
	Transitions  int    `json:"transitions"`
	ModelCalls   int    `json:"model_calls"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	LatencyMS    int64  `json:"latency_ms"`
}

func prefixLines(prefix, text string) string {
	if prefix == "" {
		return text
	}
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}

// columns lays two texts side by side in a width of w, wrapping each to its
// column; a gutter of " │ " divides them.
func columns(left, right string, w int) string {
	col := (w - 3) / 2
	l := strings.Split(ansi.Wrap(left, col, ""), "\n")
	r := strings.Split(ansi.Wrap(right, col, ""), "\n")
	var b strings.Builder
	for i := range max(len(l), len(r)) {
		var a, c string
		if i < len(l) {
			a = l[i]
		}
		if i < len(r) {
			c = r[i]
		}
		b.WriteString(a + strings.Repeat(" ", max(0, col-ansi.StringWidth(a))) + " │ " + c)
		b.WriteString("\n")
	}
	return b.String()
}

// failureMessage is a provider failure as the person reads it: in English
// the trace's message; in another language the provider's sentence said in
// it, when the record carries one (a live run; a record read back from a
// session has only the English).
func failureMessage(l lang.Lang, t loop.Transition) string {
	if l != lang.EN && t.Error.Said != nil {
		return l.Error(t.Error.Said)
	}
	return t.Error.Message
}
