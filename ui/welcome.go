package ui

import (
	"fmt"
	"regexp"
	"strings"

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
	reason := who.BackendReason(l, backendReason(l, r.reason))
	backend := strings.ToUpper(r.backend)
	switch {
	case r.banner != "":
		banner := r.banner
		if head, ok := strings.CutSuffix(banner, ": "+r.reason); ok && r.reason != "" {
			banner = head + ": " + reason
		}
		line(banner)
	case backend != "":
		line(fmt.Sprintf("%s %s · %s%s", r.provider, r.model, backend, parenthesised(reason)))
	}
	switch strings.ToLower(r.backend) {
	case "offline":
		line(l.T("OFFLINE: a built-in tutor model follows lesson scripts; the HTTP payloads are real."))
		if how := who.GoLive(l); how != "" {
			line(l.F("To go live: %s.", how))
		}
	case "replay":
		line(l.T("REPLAY: recorded HTTP exchanges are served back; a request that differs is flagged."))
	case "live":
		line(l.T("LIVE: every model call is a real request to the provider."))
	}
	if r.workspace != "" {
		line(l.F("Workspace (the only folder the tools may touch): %s", r.workspace))
	}
	if sb := c.sandbox; sb != "" {
		if strings.HasPrefix(sb, "on") {
			sb, _, _ = strings.Cut(sb, ":") // "on — Landlock ABI 7"; off keeps its reason
		}
		line(l.F("Sandbox for commands: %s", onOff(l, sb)))
	}
	b.WriteString(who.FirstMoves(l))
	if ls, ok := c.current(); ok && !c.sent && who.May(role.Send) {
		b.WriteString("\n▶ " + l.F("Press Enter to send the %s lesson: %q", ls.Name, firstLineOf(ls.Request)))
	}
	return b.String()
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

// The reasons a dialect gives for its backend (dialect.Descriptor.Live),
// read back so a Japanese screen can say them; the trace keeps them as
// they are.
var (
	neitherSet  = regexp.MustCompile(`^(?:no (\S+) or (\S+)|neither (\S+) nor (\S+)) is set$`)
	notAnswered = regexp.MustCompile(`^(\S+) is not set and nothing answered at (\S+)$`)
	isSet       = regexp.MustCompile(`^(\S+) is set( \(([^()]+)\))?$`)
	answeredAt  = regexp.MustCompile(`^(\S+) answered at (\S+)$`)
)

// backendReason is why a run has its backend, in language l; a reason of
// another shape (a flag, a cassette) is shown as the dialect wrote it.
func backendReason(l lang.Lang, reason string) string {
	if l != lang.JA {
		return reason
	}
	if m := neitherSet.FindStringSubmatch(reason); m != nil {
		a, b := m[1]+m[3], m[2]+m[4]
		return l.F("neither %s nor %s is set", a, b)
	}
	if m := notAnswered.FindStringSubmatch(reason); m != nil {
		return l.F("%s is not set and nothing answered at %s", m[1], m[2])
	}
	if m := isSet.FindStringSubmatch(reason); m != nil {
		if m[3] != "" {
			return l.F("%s is set (%s)", m[1], m[3])
		}
		return l.F("%s is set", m[1])
	}
	if m := answeredAt.FindStringSubmatch(reason); m != nil {
		return l.F("%s answered at %s", m[1], m[2])
	}
	return reason
}
