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

// HumanInterruption is the interrupted record in the human trace.
func HumanInterruption(i Interruption) string {
	return Printable(fmt.Sprintf("%-9s in %s: %s; running commands were stopped, temporary files removed", "[STOPPED]", i.Interrupted.State, i.Interrupted.Cause))
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
func Summary(t Transition) string {
	switch t.Edge {
	case EdgeNewEvent:
		line := fmt.Sprintf("%s/%s: %q", t.Event.Source, t.Event.Type, Clip(t.Event.Data, 200))
		if t.Event.From != "" {
			line += " from " + t.Event.From // the MCP bus: which client asked
		}
		return line
	case EdgeContextReady:
		return fmt.Sprintf("iteration %d: context assembled (%s + tool definitions)", t.Iteration, Count(t.HistoryLen-t.Notes, "message"))
	case EdgeToolCall, EdgeFinalAnswer:
		l := t.LLM
		var b strings.Builder
		fmt.Fprintf(&b, "stop_reason: %s (finish_reason %s)", l.StopReason, orDash(l.FinishReason))
		for _, c := range l.ToolCalls {
			fmt.Fprintf(&b, " · %s %s", c.Name, Clip(string(c.Args), 120))
		}
		fmt.Fprintf(&b, " · tokens %d→%d · %d ms", l.Usage.InputTokens, l.Usage.OutputTokens, l.LatencyMS)
		if l.ServerMS > 0 {
			fmt.Fprintf(&b, " (server: %d ms)", l.ServerMS)
		}
		if n := len(l.Retries); n > 0 {
			fmt.Fprintf(&b, " · %s", Count(n, "retry"))
		}
		for _, d := range l.Divergences {
			fmt.Fprintf(&b, " · REPLAY DIVERGENCE: %s", d)
		}
		if l.Thought != "" {
			fmt.Fprintf(&b, " · thought: %q", Clip(l.Thought, 160))
		}
		if t.Edit != nil {
			fmt.Fprintf(&b, " · context edited before sending: %s", Clip(t.Edit.Summary(), 200))
		}
		return b.String()
	case EdgeMalformedResponse:
		return "malformed_response: " + Clip(t.Error.Message, 240)
	case EdgeLLMFailure:
		var b strings.Builder
		for _, r := range t.LLM.Retries {
			fmt.Fprintf(&b, "retry %d after %d ms (%s) · ", r.Attempt, r.WaitMS, Clip(r.Reason, 80))
		}
		if t.Error.Kind == KindRepeatedFailure {
			// Not the provider: the reply came back unusable again.
			return fmt.Sprintf("stop_reason: %s · %s: %s", orDash(t.LLM.StopReason), KindRepeatedFailure, t.Error.Message)
		}
		return b.String() + "llm_failure: " + t.Error.Message
	case EdgeAllow, EdgeDeny, EdgeConfirmRequired:
		return fmt.Sprintf("%s %s → %s (rule %s: %s)", t.Tool.Name, Clip(string(t.Tool.Args), 120), t.Decision.Verdict, t.Decision.Rule, t.Decision.Reason)
	case EdgeUserApproval, EdgeUserDenial:
		return fmt.Sprintf("%s %s → %s", t.Tool.Name, Clip(string(t.Tool.Args), 120), strings.TrimPrefix(t.Decision.Reason, "person: "))
	case EdgeToolSuccess, EdgeToolFailure:
		status := "ok"
		if t.Result.IsError {
			status = "failed"
		}
		return fmt.Sprintf("%s → %s in %d ms: %s", t.Tool.Name, status, t.Result.DurationMS, Clip(oneLine(t.Result.Content), 160))
	case EdgeNextToolCall, EdgeObserved:
		what := "result of " + nameOf(t)
		if t.Result != nil && t.Result.IsError {
			what = "error for " + nameOf(t)
		} else if t.Tool == nil {
			what = "the parse error"
		}
		next := "next tool call"
		if t.Edge == EdgeObserved {
			next = "back to the model"
		}
		if n := len(t.Added) - 1; n > 0 && t.Tool != nil {
			what += fmt.Sprintf(" (+ %s of this turn not run: interrupted)", Count(n, "later call"))
		}
		return fmt.Sprintf("%s added to context → %s", what, next)
	case EdgeDelivered:
		return fmt.Sprintf("to %s: %s", t.Output.Target, t.Output.Text)
	case EdgeMaxIterations:
		return t.Error.Message
	case EdgeReported:
		return fmt.Sprintf("reported to %s: %s", t.Output.Target, t.Output.Text)
	}
	return string(t.Edge)
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
// The MCP frames of the step follow, one line each (HumanFrame).
func Human(t Transition) string {
	line := Printable(fmt.Sprintf("%-9s #%d %s --%s--> %s · %s", Tag(t), t.Seq, t.From, t.Edge, t.To, Summary(t)))
	for _, f := range t.MCP {
		line += "\n" + HumanFrame(f)
	}
	return line
}

// HumanFrame is one MCP frame in the human trace: "[MCP]     notes → tools/call {…}".
func HumanFrame(f tools.Frame) string {
	arrow := "→"
	if f.Dir == "recv" {
		arrow = "←"
	}
	what := Clip(string(f.Body), 200)
	if f.Error != "" {
		what = "error: " + Clip(f.Error, 200)
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
