package loop

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
)

// Onto is the provider a fork continues with (ForkOnto).
type Onto struct {
	Provider      Provider
	Backend       string // live, offline, replay
	BackendReason string
	// ToolMode is the Llama tool mode ("json", "native"); "" for Gemini.
	ToolMode string
}

// forkOnto is an Onto with the note the fork wrote.
type forkOnto struct {
	Onto
	Note string
}

// ForkRecord is the trace record of a fork (Config.OnFork): not a
// transition of the state machine, but the line that says the run went
// back to step From and, possibly, on with another provider.
type ForkRecord struct {
	Run  string   `json:"run,omitempty"`
	Fork ForkInfo `json:"fork"`
}

// ForkInfo says where a fork went back to and what it continues with.
type ForkInfo struct {
	From     int    `json:"from"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	ToolMode string `json:"tool_mode,omitempty"`
	Note     string `json:"note,omitempty"`
}

// ForkOnto is Fork that continues with another provider — Gemini, Llama in
// JSON mode or Llama with native tools. The conversation carries over in its
// neutral form; each reply's native encoding (a Gemini Content with its
// thought signatures, a JSON-mode reply as written) cannot, and is dropped
// with a note in the history (RoleNote, never sent to a model) and in the
// trace (Config.OnFork).
func (e *Engine) ForkOnto(seq int, onto Onto, files bool) error {
	if onto.Provider == nil {
		return fmt.Errorf("ForkOnto: no provider")
	}
	if !e.stepping.TryLock() {
		return ErrBusy
	}
	defer e.stepping.Unlock()
	return e.forkLocked(seq, files, &forkOnto{Onto: onto})
}

// switchProvider puts onto's provider in place and rewrites the history for
// it; it returns the note it added.
func (e *Engine) switchProvider(onto *forkOnto) []history.Message {
	from := dialectLabel(e.cfg.Provider.Name(), e.toolMode)
	keep := session.NativeName(onto.Provider.Name(), onto.ToolMode)
	msgs := e.log.Messages()
	replies, signatures := 0, 0
	for _, m := range msgs {
		if m.Native == nil || m.Native.Provider == keep {
			continue
		}
		replies++
		if m.Native.Provider == "gemini" {
			signatures += strings.Count(string(m.Native.Data), `"thoughtSignature"`)
		}
	}
	e.cfg.Provider, e.cfg.Backend, e.cfg.BackendReason = onto.Provider, onto.Backend, onto.BackendReason
	e.toolMode = onto.ToolMode
	to := dialectLabel(onto.Provider.Name(), onto.ToolMode)
	note := fmt.Sprintf("From step %d this conversation continues with %s (%s) instead of %s.", e.seq, to, onto.Provider.Model(), from)
	switch {
	case replies == 0:
		note += " Everything carries over."
	default:
		note += fmt.Sprintf(" The text, tool calls and results carry over; %d %s kept in %s's own encoding could not and %s dropped",
			replies, plural(replies, "reply", "replies"), from, plural(replies, "was", "were"))
		if signatures > 0 {
			note += fmt.Sprintf(", with %d Gemini thought %s", signatures, plural(signatures, "signature", "signatures"))
		}
		note += "."
	}
	onto.Note = note
	stripped := session.StripNative(msgs, keep)
	var l history.Log
	l.Append(stripped...)
	msg := history.Message{Role: history.RoleNote, Text: note}
	l.Append(msg)
	e.log = l
	e.countNotes()
	return []history.Message{msg}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// dialectLabel names a dialect for a person: "Gemini", "Llama (JSON mode)".
func dialectLabel(provider, toolMode string) string {
	switch {
	case provider == "gemini":
		return "Gemini"
	case provider == "llama" && toolMode == "native":
		return "Llama (native tools)"
	case provider == "llama":
		return "Llama (JSON mode)"
	}
	return provider
}

// JSON is the fork record as one JSONL line (without the newline).
func (r ForkRecord) JSON() ([]byte, error) { return json.Marshal(r) }
