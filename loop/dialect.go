package loop

import (
	"encoding/json"
	"fmt"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/session"
)

// Dialect is what the engine knows of the way its provider talks to the
// model; providers/backend's registry fills it (agentrun), so the engine
// spells no dialect's name.
type Dialect struct {
	Name  string // as --compare names it
	Label string // inside a sentence: "Gemini", "Llama (JSON mode)"
	// ToolMode tells apart the dialects of one provider; "" when it has one.
	ToolMode string
	// Native is the history.Native provider name its replies carry.
	Native string
	// Dropped, when set, says what a fork away from this dialect loses
	// beyond its replies' encoding (see dialect.Descriptor.Dropped).
	Dropped func(native [][]byte) string
}

// label is how a note names the dialect of provider p.
func (d Dialect) label(p Provider) string {
	if d.Label != "" {
		return d.Label
	}
	return p.Name()
}

// native is the history.Native provider name of provider p's replies.
func (d Dialect) native(p Provider) string {
	if d.Native != "" {
		return d.Native
	}
	return session.NativeName(p.Name(), d.ToolMode)
}

// Onto is the provider a fork continues with (ForkOnto).
type Onto struct {
	Provider      Provider
	Backend       string // live, offline, replay
	BackendReason string
	Dialect       Dialect
}

// Dialect is the dialect the engine's provider speaks now (after a fork
// onto another, that one).
func (e *Engine) Dialect() Dialect {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dialect
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

// ForkOnto is Fork that continues with another dialect. The conversation
// carries over in its neutral form; each reply's native encoding (a Gemini
// Content with its thought signatures, a JSON-mode reply as written) cannot,
// and is dropped with a note in the history (RoleNote, never sent to a
// model) and in the trace (Config.OnFork).
func (e *Engine) ForkOnto(seq int, onto Onto, files bool) error {
	if onto.Provider == nil {
		return fmt.Errorf("ForkOnto: no provider")
	}
	if !e.stepping.TryLock() {
		return ErrBusy
	}
	defer e.stepping.Unlock()
	return e.forkLocked(seq, files, &forkOnto{Onto: onto}, -1)
}

// switchProvider puts onto's provider in place and rewrites the history for
// it; it returns the note it added.
func (e *Engine) switchProvider(onto *forkOnto) []history.Message {
	from := e.dialect.label(e.cfg.Provider)
	keep := onto.Dialect.native(onto.Provider)
	msgs := e.log.Messages()
	var dropped [][]byte
	for _, m := range msgs {
		if m.Native != nil && m.Native.Provider != keep {
			dropped = append(dropped, m.Native.Data)
		}
	}
	e.cfg.Provider, e.cfg.Backend, e.cfg.BackendReason = onto.Provider, onto.Backend, onto.BackendReason
	lost := ""
	if e.dialect.Dropped != nil {
		lost = e.dialect.Dropped(dropped)
	}
	e.mu.Lock()
	e.dialect = onto.Dialect
	e.mu.Unlock()
	to := onto.Dialect.label(onto.Provider)
	note := fmt.Sprintf("From step %d this conversation continues with %s (%s) instead of %s.", e.seq, to, onto.Provider.Model(), from)
	switch replies := len(dropped); replies {
	case 0:
		note += " Everything carries over."
	default:
		note += fmt.Sprintf(" The text, tool calls and results carry over; %d %s kept in %s's own encoding could not and %s dropped%s.",
			replies, plural(replies, "reply", "replies"), from, plural(replies, "was", "were"), lost)
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

// JSON is the fork record as one JSONL line (without the newline).
func (r ForkRecord) JSON() ([]byte, error) { return json.Marshal(r) }
