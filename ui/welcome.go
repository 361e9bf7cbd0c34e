package ui

import (
	"fmt"
	"strings"
)

// addWelcome puts a short note at the top of History: what glassbox is,
// which backend runs and why, how to go live and which keys to press. It is
// a note for the learner, never a message sent to the model.
func (m *Model) addWelcome() {
	var b strings.Builder
	b.WriteString("glassbox — an AI coding agent's Think → Act → Observe loop, one transition at a time.\n")
	backend := strings.ToUpper(m.backend)
	switch {
	case m.cfg.Banner != "":
		b.WriteString(m.cfg.Banner + "\n")
	case backend != "":
		fmt.Fprintf(&b, "%s %s · %s%s\n", m.provider, m.model, backend, parenthesised(m.cfg.BackendReason))
	}
	switch strings.ToLower(m.backend) {
	case "offline":
		b.WriteString("OFFLINE: a built-in tutor model follows lesson scripts; the HTTP payloads are real.\n")
		b.WriteString("Go live with Gemini:\n  GEMINI_API_KEY=... go run . --provider gemini\n")
		b.WriteString("or with Llama (start ollama serve first):\n  go run . --provider llama\n")
	case "replay":
		b.WriteString("REPLAY: recorded HTTP exchanges are served back; a request that differs is flagged.\n")
	case "live":
		b.WriteString("LIVE: every model call is a real request to the provider.\n")
	}
	if m.cfg.Workspace != "" {
		fmt.Fprintf(&b, "Workspace (the only folder the tools may touch): %s\n", m.cfg.Workspace)
	}
	b.WriteString("Keys: Enter send · space step · i iteration · c continue · [ ] time travel · tab panes · ? help · q quit")
	if l, ok := m.currentLesson(); ok {
		fmt.Fprintf(&b, "\n▶ Press Enter to send the %s lesson: %q", l.Name, firstLineOf(l.Request))
	}
	m.hist.add(&historyEntry{kind: entryWelcome, text: b.String()})
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
