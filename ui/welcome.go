package ui

import (
	"fmt"
	"strings"

	registry "github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// addWelcome puts a short note at the top of each run's History: what
// glassbox is, which backend runs and why, how to go live and which keys to
// press first. It is a note for the learner, never a message sent to the
// model.
func (c *lessonController) addWelcome() {
	for _, r := range c.stepper.runs {
		r.history.add(&historyEntry{kind: entryWelcome, text: c.welcomeText(r)})
	}
}

func (c *lessonController) welcomeText(r *runView) string {
	l := c.lang
	if c.intro != nil { // a tap's: where it listens, what to set, what it cannot see
		return strings.Join(c.intro, "\n")
	}
	var b strings.Builder
	b.WriteString(l.T("glassbox — an AI coding agent's Think → Act → Observe loop, one transition at a time.") + "\n")
	if c.stepper.compare() {
		b.WriteString(l.F("COMPARE: this is the %s run; the other run gets the same requests.", r.title()) + "\n")
	}
	backend := strings.ToUpper(r.backend)
	switch {
	case r.banner != "":
		banner := r.banner
		if head, ok := strings.CutSuffix(banner, ": "+r.reason); ok && r.reason != "" {
			banner = head + ": " + r.reasonIn(l)
		}
		b.WriteString(banner + "\n")
	case backend != "":
		fmt.Fprintf(&b, "%s %s · %s%s\n", r.provider, r.model, backend, parenthesised(r.reasonIn(l)))
	}
	b.WriteString(backendNote(l, r.backend))
	if r.workspace != "" {
		b.WriteString(l.F("Workspace (the only folder the tools may touch): %s", r.workspace) + "\n")
	}
	if sb := c.sandbox; sb != "" {
		// "on — Landlock ABI 7 …; limits: …"; off keeps its reason
		b.WriteString(l.F("Sandbox for commands: %s", tools.SandboxBrief(sb)) + "\n")
	}
	if c.recording {
		b.WriteString(l.T("First moves: space steps one transition, i one model call, c the whole turn; [ and ] go back and forth in time. Press esc, then ? for every key."))
		return b.String()
	}
	b.WriteString(l.T("First moves: type a request (or press Enter for the lesson below), then space steps one transition, c runs to the answer. Press esc, then ? for every key."))
	if ls, ok := c.current(); ok && !c.sent {
		b.WriteString("\n▶ " + l.F("Press Enter to send the %s lesson: %q", ls.Name, firstLineOf(ls.Request)))
	}
	return b.String()
}

// backendNote is the welcome's line on where the model's answers come
// from ("" for a backend with none).
func backendNote(l lang.Lang, backend string) string {
	switch strings.ToLower(backend) {
	case "offline":
		return l.T("OFFLINE: a built-in tutor model follows lesson scripts; the HTTP payloads are real.") + "\n" + l.F("To go live: %s.", goLive(l)) + "\n"
	case "replay":
		return l.T("REPLAY: recorded HTTP exchanges are served back; a request that differs is flagged.") + "\n"
	case "live":
		return l.T("LIVE: every model call is a real request to the provider.") + "\n"
	case "file":
		return l.T("FILE: a trace another agent left, stepped through here; the steps glassbox cannot see, only infer (the agent approving and running its tools, showing its answer), say so.") + "\n"
	}
	return ""
}

// refreshWelcome says the welcome again for the lesson on offer now: once a
// lesson was sent it offers none, once another was picked it names that
// one.
func (c *lessonController) refreshWelcome() {
	for _, r := range c.stepper.runs {
		r.history.welcome(c.welcomeText(r))
	}
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// goLive says how to turn each provider's live service on, as
// registry.GoLive does, in language l: each dialect's way (GoLive.Say), the
// commands and flags as they are.
func goLive(l lang.Lang) string {
	if l != lang.JA {
		return registry.GoLive()
	}
	var how, flags []string
	seen := map[string]bool{}
	for _, d := range registry.Dialects() {
		if d.GoLive.Zero() || seen[d.Provider] {
			continue
		}
		seen[d.Provider] = true
		how = append(how, d.GoLive.Say(l.String(), l.F))
		flags = append(flags, "--provider "+d.Provider)
	}
	return l.F("%s, then start with %s", strings.Join(how, "、"), strings.Join(flags, "、"))
}

// reasonIn is why the run has its backend, in language l: the reason its
// dialect gave (backend.Backend.Why), said through the catalogue; a reason
// of another kind (a flag, a cassette, a fork's) as it was written.
func (r *runView) reasonIn(l lang.Lang) string {
	if r.why.Zero() || r.why.String() != r.reason {
		return r.reason
	}
	format, args := r.why.Sentence()
	return fmt.Sprintf(l.Dyn(format), args...)
}
