package glassbox

import (
	"fmt"
	"strings"

	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/role"
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
	l, who := c.lang, c.who
	if c.intro != nil { // a tap's: where it listens, what to set, what it cannot see
		return strings.Join(c.intro, "\n")
	}
	var b strings.Builder
	line := func(s string) {
		if s != "" {
			b.WriteString(s + "\n")
		}
	}
	line(l.T("glassbox — an AI coding agent's Think → Act → Observe loop, one transition at a time."))
	line(who.Who(l, c.whom))
	if c.stepper.compare() {
		line(l.F("COMPARE: this is the %s run; the other run gets the same requests.", r.title()))
	}
	for _, ln := range c.backendLines(r) {
		line(ln)
	}
	if r.workspace != "" {
		line(l.F("Workspace (the only folder the tools may touch): %s", r.workspace))
	}
	if sb := c.sandbox; sb != "" {
		// "on — Landlock ABI 7 …; limits: …"; off keeps its reason
		line(l.F("Sandbox for commands: %s", l.Sandbox(tools.SandboxBrief(sb))))
	}
	b.WriteString(who.FirstMoves(l))
	if ls, ok := c.current(); ok && !c.sent && who.May(role.Send) {
		b.WriteString("\n▶ " + l.F("Press Enter to send the %s lesson: %q", ls.Name, firstLineOf(ls.Request)))
	}
	return b.String()
}

// backendLines are the welcome's lines on the run's backend: which, why
// (as the person's role reads it), what it means, and how to go live.
func (c *lessonController) backendLines(r *runView) []string {
	l, who := c.lang, c.who
	var out []string
	reason := who.BackendReason(l, r.reasonIn(l))
	backend := strings.ToUpper(r.backend)
	switch {
	case r.banner != "":
		banner := r.banner
		if head, ok := strings.CutSuffix(banner, ": "+r.reason); ok && r.reason != "" {
			banner = head + ": " + reason
		}
		out = append(out, banner)
	case backend != "":
		out = append(out, fmt.Sprintf("%s %s · %s%s", r.provider, r.model, backend, parenthesised(reason)))
	}
	switch strings.ToLower(r.backend) {
	case "offline":
		out = append(out, l.T("OFFLINE: a built-in tutor model follows lesson scripts; the HTTP payloads are real."))
		if how := who.GoLive(l); how != "" {
			out = append(out, l.F("To go live: %s.", how))
		}
	case "replay":
		out = append(out, l.T("REPLAY: recorded HTTP exchanges are served back; a request that differs is flagged."))
	case "live":
		out = append(out, l.T("LIVE: every model call is a real request to the provider."))
	case "file":
		out = append(out, l.T("FILE: a trace another agent left, stepped through here; the steps glassbox cannot see, only infer (the agent approving and running its tools, showing its answer), say so."))
	}
	return out
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
