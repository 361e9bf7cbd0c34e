package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/glassbox-dev/glassbox/tools"
)

// WriteJSON writes one transition as one JSONL line (docs/trace-format.md).
func WriteJSON(w io.Writer, t Transition) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// Interruption is the last trace record of a run stopped from outside: a
// person's Ctrl-C, or SIGTERM or SIGHUP (a closed terminal). It carries no
// seq: it is not a transition, it says where the run stood when it ended.
type Interruption struct {
	Run         string          `json:"run,omitempty"`
	Time        time.Time       `json:"time"`
	Interrupted InterruptRecord `json:"interrupted"`
}

// InterruptRecord says in which state the run stopped and why.
type InterruptRecord struct {
	State State  `json:"state"`
	Cause string `json:"cause"`
}

// CauseText is a cancellation's cause as the trace says it:
// "interrupt signal received", "terminated signal received", "hangup
// signal received", or "cancelled".
func CauseText(err error) string {
	if err == nil || errors.Is(err, context.Canceled) && err.Error() == context.Canceled.Error() {
		return "cancelled"
	}
	return err.Error()
}

// WriteInterruption writes the interrupted record as one JSONL line.
func WriteInterruption(w io.Writer, i Interruption) error {
	b, err := json.Marshal(i)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Say formats a sentence of the human trace in the reader's language from
// its English format and values. English is fmt.Sprintf; a front end passes
// its catalog's (ui/lang's Lang.F). The engine knows no language: the
// formats below are the catalog's keys (ui/lang's catalog test reads every
// say call of this package), the values (state, edge, rule and tool names,
// payload text) are never translated.
type Say func(format string, args ...any) string

// English says the human trace as it is written here.
var English Say = fmt.Sprintf

// HumanInterruptionIn is the interrupted record in the human trace, said
// with say.
func HumanInterruptionIn(i Interruption, say Say) string {
	return Printable(fmt.Sprintf("%-9s ", "[STOPPED]") + say("in %s: %s; running commands were stopped, temporary files removed", i.Interrupted.State, i.Interrupted.Cause))
}

// Tag is the seed-style label of a transition in the human trace.
func Tag(t Transition) string {
	switch t.Edge {
	case EdgeNewEvent:
		return "[EVENT]"
	case EdgeContextReady:
		return "[THINK]"
	case EdgeToolCall, EdgeFinalAnswer, EdgeMalformedResponse, EdgeLLMFailure:
		return "[LLM]"
	case EdgeAllow, EdgeDeny, EdgeConfirmRequired:
		return "[POLICY]"
	case EdgeUserApproval, EdgeUserDenial:
		return "[PERSON]"
	case EdgeToolSuccess, EdgeToolFailure:
		return "[ACT]"
	case EdgeNextToolCall, EdgeObserved:
		return "[OBSERVE]"
	case EdgeDelivered:
		return "[ANSWER]"
	case EdgeMaxIterations, EdgeReported:
		return "[HALTED]"
	}
	return "[STEP]"
}

// Summary is the one-line human description of a transition, without the tag.
func Summary(t Transition) string { return SummaryIn(t, English) }

// SummaryIn is Summary said with say.
func SummaryIn(t Transition, say Say) string {
	switch t.Edge {
	case EdgeNewEvent:
		line := fmt.Sprintf("%s/%s: %q", t.Event.Source, t.Event.Type, Clip(t.Event.Data, 200))
		if t.Event.From != "" {
			line += " " + say("from %s", t.Event.From) // the MCP bus: which client asked
		}
		return line
	case EdgeContextReady:
		n := t.HistoryLen - t.Notes
		return say("iteration %d: context assembled (%s + tool definitions)", t.Iteration, plural(n, say("%d message", n), say("%d messages", n)))
	case EdgeToolCall, EdgeFinalAnswer:
		return replySummary(t, say)
	case EdgeMalformedResponse:
		return "malformed_response: " + Clip(t.Error.Message, 240)
	case EdgeLLMFailure:
		return failureSummary(t, say)
	case EdgeAllow, EdgeDeny, EdgeConfirmRequired:
		return fmt.Sprintf("%s %s → %s ", t.Tool.Name, Clip(string(t.Tool.Args), 120), t.Decision.Verdict) + say("(rule %s: %s)", t.Decision.Rule, RuleReason(t.Decision.Reason))
	case EdgeUserApproval, EdgeUserDenial:
		return fmt.Sprintf("%s %s → %s", t.Tool.Name, Clip(string(t.Tool.Args), 120), strings.TrimPrefix(t.Decision.Reason, "person: "))
	case EdgeToolSuccess, EdgeToolFailure:
		if t.Result.IsError {
			return say("%s → failed in %d ms: %s", t.Tool.Name, t.Result.DurationMS, Clip(oneLine(t.Result.Content), 160))
		}
		return say("%s → ok in %d ms: %s", t.Tool.Name, t.Result.DurationMS, Clip(oneLine(t.Result.Content), 160))
	case EdgeNextToolCall, EdgeObserved:
		return observedSummary(t, say)
	case EdgeDelivered:
		return say("to %s: %s", t.Output.Target, t.Output.Text)
	case EdgeMaxIterations:
		return t.Error.Message
	case EdgeReported:
		return say("reported to %s: %s", t.Output.Target, t.Output.Text)
	}
	return string(t.Edge)
}

// replySummary describes the model's reply: why it stopped, the calls it
// asked for, tokens and time, retries, replay divergences, its thought and
// a what-if edit sent with it.
func replySummary(t Transition, say Say) string {
	l := t.LLM
	var b strings.Builder
	fmt.Fprintf(&b, "stop_reason: %s (finish_reason %s)", l.StopReason, orDash(l.FinishReason))
	for _, c := range l.ToolCalls {
		fmt.Fprintf(&b, " · %s %s", c.Name, Clip(string(c.Args), 120))
	}
	b.WriteString(" · " + say("tokens %d→%d · %d ms", l.Usage.InputTokens, l.Usage.OutputTokens, l.LatencyMS))
	if l.ServerMS > 0 {
		b.WriteString(" " + say("(server: %d ms)", l.ServerMS))
	}
	if n := len(l.Retries); n > 0 {
		b.WriteString(" · " + plural(n, say("%d retry", n), say("%d retries", n)))
	}
	for _, d := range l.Divergences {
		b.WriteString(" · " + say("REPLAY DIVERGENCE: %s", d))
	}
	if l.Thought != "" {
		b.WriteString(" · " + say("thought: %q", Clip(l.Thought, 160)))
	}
	if t.Edit != nil {
		b.WriteString(" · " + say("context edited before sending: %s", Clip(t.Edit.Summary(), 200)))
	}
	return b.String()
}

// failureSummary describes a model call that failed: its retries and
// why, or a reply that came back unusable again.
func failureSummary(t Transition, say Say) string {
	if t.Error.Kind == KindRepeatedFailure {
		// Not the provider: the reply came back unusable again.
		return fmt.Sprintf("stop_reason: %s · %s: %s", orDash(t.LLM.StopReason), KindRepeatedFailure, t.Error.Message)
	}
	var b strings.Builder
	for _, r := range t.LLM.Retries {
		b.WriteString(say("retry %d after %d ms (%s)", r.Attempt, r.WaitMS, Clip(r.Reason, 80)) + " · ")
	}
	return b.String() + "llm_failure: " + t.Error.Message
}

// observedSummary describes what was added to the context after a call:
// its result, its error or the parse error, and later calls of the turn
// not run.
func observedSummary(t Transition, say Say) string {
	what := say("result of %s", nameOf(t))
	if t.Result != nil && t.Result.IsError {
		what = say("error for %s", nameOf(t))
	} else if t.Tool == nil {
		what = say("the parse error")
	}
	if n := len(t.Added) - 1; n > 0 && t.Tool != nil {
		what += " " + say("(+ %s of this turn not run: interrupted)", plural(n, say("%d later call", n), say("%d later calls", n)))
	}
	if t.Edge == EdgeObserved {
		return say("%s added to context → back to the model", what)
	}
	return say("%s added to context → next tool call", what)
}

// Count says "1 message", "2 messages", "3 retries": a number with its
// noun, singular or plural as English wants it (nouns in -y take -ies).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func nameOf(t Transition) string {
	if t.Tool == nil {
		return "?"
	}
	return t.Tool.Name
}

// Human is the human trace line of a transition: tag, sequence, arc, summary.
// Control characters from model or file text are shown escaped, never sent
// to the terminal (an ESC could retitle the window or write the clipboard).
//
// The MCP frames of the step follow, one line each (HumanFrameIn).
func Human(t Transition) string { return HumanIn(t, English) }

// HumanIn is Human said with say: the tag, the arc and every name stay as
// they are, the prose is say's.
func HumanIn(t Transition, say Say) string {
	line := Printable(fmt.Sprintf("%-9s #%d %s --%s--> %s · %s", Tag(t), t.Seq, t.From, t.Edge, t.To, SummaryIn(t, say)))
	for _, f := range t.MCP {
		line += "\n" + HumanFrameIn(f, say)
	}
	return line
}

// HumanFrameIn is one MCP frame in the human trace, said with say:
// "[MCP]     notes → tools/call {…}".
func HumanFrameIn(f tools.Frame, say Say) string {
	arrow := "→"
	if f.Dir == "recv" {
		arrow = "←"
	}
	what := Clip(string(f.Body), 200)
	if f.Error != "" {
		what = say("error: %s", Clip(f.Error, 200))
	}
	return Printable(fmt.Sprintf("%-9s %s", "[MCP]", oneLine(fmt.Sprintf("%s %s %s %s", f.Server, arrow, orDash(f.Method), what))))
}

// Clip shortens s to at most n runes, marking the cut.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
