package ui

import (
	"fmt"
	registry "github.com/glassbox-dev/glassbox/providers/backend"
	"strings"
)

// addWelcome puts a short note at the top of each run's History: what
// glassbox is, which backend runs and why, how to go live and which keys to
// press first. It is a note for the learner, never a message sent to the
// model.
func (m *Model) addWelcome() {
	for _, r := range m.runs {
		r.hist.add(&historyEntry{kind: entryWelcome, text: m.welcomeText(r)})
	}
}

func (m *Model) welcomeText(r *runView) string {
	var b strings.Builder
	b.WriteString("glassbox — an AI coding agent's Think → Act → Observe loop, one transition at a time.\n")
	if m.compare() {
		fmt.Fprintf(&b, "COMPARE: this is the %s run; the other run gets the same requests.\n", r.title())
	}
	backend := strings.ToUpper(r.backend)
	switch {
	case r.banner != "":
		b.WriteString(r.banner + "\n")
	case backend != "":
		fmt.Fprintf(&b, "%s %s · %s%s\n", r.provider, r.model, backend, parenthesised(r.reason))
	}
	switch strings.ToLower(r.backend) {
	case "offline":
		b.WriteString("OFFLINE: a built-in tutor model follows lesson scripts; the HTTP payloads are real.\n")
		b.WriteString("To go live: " + registry.GoLive() + ".\n")
	case "replay":
		b.WriteString("REPLAY: recorded HTTP exchanges are served back; a request that differs is flagged.\n")
	case "live":
		b.WriteString("LIVE: every model call is a real request to the provider.\n")
	}
	if r.workspace != "" {
		fmt.Fprintf(&b, "Workspace (the only folder the tools may touch): %s\n", r.workspace)
	}
	if sb := m.cfg.Sandbox; sb != "" {
		if strings.HasPrefix(sb, "on") {
			sb, _, _ = strings.Cut(sb, ":") // "on — Landlock ABI 7"; off keeps its reason
		}
		fmt.Fprintf(&b, "Sandbox for commands: %s\n", sb)
	}
	b.WriteString("First moves: type a request (or press Enter for the lesson below), then space steps one transition, c runs to the answer. Press esc, then ? for every key.")
	if l, ok := m.currentLesson(); ok && !m.lessonSent {
		fmt.Fprintf(&b, "\n▶ Press Enter to send the %s lesson: %q", l.Name, firstLineOf(l.Request))
	}
	return b.String()
}

// refreshWelcome says the welcome again for the lesson on offer now: once a
// lesson was sent it offers none, once another was picked it names that
// one.
func (m *Model) refreshWelcome() {
	for _, r := range m.runs {
		for _, e := range r.hist.entries {
			if e.kind == entryWelcome {
				e.text, e.lines = m.welcomeText(r), nil
				break
			}
		}
	}
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
