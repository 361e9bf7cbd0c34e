// Package role is who a person at a glass box is — on their own terminal,
// instructing a room, a learner in it, or following someone's run — and
// what that person may do. It is the one place this is written: the
// welcome's first moves, the hint bar, the help overlay, the keys refused
// and the offline tutor's answer to a request it does not know are all
// made from it (docs/architecture.md, "Components and layout": its part
// "Who may do what").
package role

import (
	"strings"

	registry "github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Role is who a person at a glass box is.
type Role int

const (
	// Local is glassbox on one's own terminal: every key, one's own flags.
	Local Role = iota
	// Instructor runs a room (glassbox serve --instruct): their own glass
	// box, broadcast to followers, with the room's roster.
	Instructor
	// Learner is a glass box of one's own in a served room, reached over
	// ssh: every key of a run, but the room's backend and flags are the
	// instructor's.
	Learner
	// Follower watches another's run, read-only (ssh follow@ or glassbox
	// follow): nothing pressed reaches that run.
	Follower
	// Reader steps through a trace file another agent left (glassbox
	// open): read-only, no model, nothing to send.
	Reader
	// Tapper holds and lets through another agent's calls (glassbox tap):
	// they step, continue and edit a held request, but the requests are
	// the agent's, typed in its own terminal.
	Tapper
)

// Ability is one kind of thing a person may do at a glass box; each key
// needs one (the glass box maps its keys to them).
type Ability int

const (
	// Look moves around what is shown: panes, scrolling, zoom, time
	// travel, help, quitting.
	Look Ability = iota
	// Send types a request and sends it.
	Send
	// Lessons picks a lesson from the menu.
	Lessons
	// Step moves the run: space, i, c, pause, breakpoints, cancelling.
	Step
	// CatchUp brings a followed run's latest step back on screen (space).
	CatchUp
	// Answer approves, denies or answers what the run asks.
	Answer
	// Change goes back and tries again: fork, fork onto a dialect,
	// abandon, what-if, the abandoned branches.
	Change
	// Predict turns predict mode on.
	Predict
	// Handout writes a handout of the step shown.
	Handout
	// Roster shows the room's learners.
	Roster
	// Replay steps through a recording (space, i, c): it shows more of
	// what was recorded, it runs nothing.
	Replay
)

// spec is what one role may do.
type spec struct {
	may []Ability
}

// table is every role and what it may do: the one place it is written.
var table = map[Role]spec{
	Local:      {may: []Ability{Look, Send, Lessons, Step, Answer, Change, Predict, Handout}},
	Instructor: {may: []Ability{Look, Send, Lessons, Step, Answer, Change, Predict, Handout, Roster}},
	Learner:    {may: []Ability{Look, Send, Lessons, Step, Answer, Change, Predict, Handout}},
	Follower:   {may: []Ability{Look, CatchUp}},
	Reader:     {may: []Ability{Look, Replay}},
	Tapper:     {may: []Ability{Look, Step, Answer, Handout}},
}

// May reports whether a person in role r may do a.
func (r Role) May(a Ability) bool {
	for _, m := range table[r].may {
		if m == a {
			return true
		}
	}
	return false
}

// Drives reports whether r moves a run of their own (sends and steps), as
// opposed to watching one.
func (r Role) Drives() bool { return r.May(Send) && r.May(Step) }

// ChoosesBackend reports whether the backend is the person's own choice:
// their flags and their keys. A learner's and a follower's are the
// instructor's.
func (r Role) ChoosesBackend() bool { return r == Local || r == Instructor }

// String names the role as the docs do.
func (r Role) String() string {
	switch r {
	case Instructor:
		return "instructor"
	case Learner:
		return "learner"
	case Follower:
		return "follower"
	case Reader:
		return "reader"
	case Tapper:
		return "tapper"
	}
	return "local"
}

// GoLive is how a person in role r reaches a real model, in language l:
// with their own variables and flags (Flags); for an instructor the same,
// when they serve the room; a learner asks the instructor; a follower is
// told nothing ("").
func (r Role) GoLive(l lang.Lang) string {
	switch r {
	case Local:
		return Flags(l)
	case Instructor:
		return l.F("%s — serve the room that way (glassbox serve --instruct …) and every learner's glass box gets it too", Flags(l))
	case Learner:
		return l.T("ask the instructor — the room's backend is theirs to choose, for every learner, and their key is never shown to you")
	}
	return ""
}

// BackendReason is why the run has its backend, as a person in role r
// reads it: the reason itself when the choice was theirs (or it is a
// file's), else that the instructor made it (a learner never passed
// --offline).
func (r Role) BackendReason(l lang.Lang, reason string) string {
	if r.ChoosesBackend() || r == Reader || r == Tapper || reason == "" {
		return reason
	}
	return l.T("the instructor's choice for the room")
}

// Who is the welcome's line on who the person is here, with whom they
// follow ("instructor") for a follower; "" on one's own terminal.
func (r Role) Who(l lang.Lang, whom string) string {
	switch r {
	case Instructor:
		return l.T("You instruct this room: each step you take is broadcast to whoever follows, and R shows the learners.")
	case Learner:
		return l.T("You are a learner in this room: this glass box, its session and its workspace are your own, on the instructor's machine; the same name brings them back.")
	case Follower:
		return l.F("You follow the %s's run, read-only: their steps appear here as they take them, and nothing you press reaches their run.", whom)
	}
	return ""
}

// FirstMoves is the welcome's line on what to press first, made from what
// r may do.
func (r Role) FirstMoves(l lang.Lang) string {
	switch {
	case r.Drives():
		return l.T("First moves: type a request (or press Enter for the lesson below), then space steps one transition, c runs to the answer. Press esc, then ? for every key.")
	case r.May(CatchUp):
		return l.T("First moves: watch the steps arrive; [ and ] go back and forth in time, space catches up, ? lists your keys, q leaves.")
	case r.May(Replay):
		return l.T("First moves: space steps one transition, i one model call, c the whole turn; [ and ] go back and forth in time. Press esc, then ? for every key.")
	}
	return l.T("Press ? for your keys, q to leave.")
}

// HowItWorks is the help overlay's opening paragraph, made from what r may
// do (compare: two runs side by side, for one who drives).
func (r Role) HowItWorks(l lang.Lang, compare bool, whom string) string {
	switch {
	case r.Drives() && compare:
		return l.T("Type a request and press Enter: it goes to both runs. Space, i and c step both runs; " +
			"tab gives the keys to one run (then the other, then both again), and that run stays on screen. " +
			"v shows the other run's panes without changing which runs the keys act on; z shows the focused " +
			"pane of both runs side by side. [ and ] move both runs to the same model call.")
	case r.Drives():
		return l.T("Type a request and press Enter: it becomes an event in the queue. " +
			"Then step: space takes one transition (the diagram lights the new state), i runs one iteration " +
			"(one model call and its tool calls), c runs until the answer, a breakpoint or a question. " +
			"[ and ] move back and forward through the steps taken; every pane follows.")
	case r == Tapper:
		return l.T("A tap stands between another agent and its model: space lets the next held request or reply through, " +
			"c lets every call pass until a breakpoint, p holds them again. [ and ] move back and forward through the steps; " +
			"every pane follows. The requests are the agent's: type them in its own terminal.")
	case r.May(Replay):
		return l.T("This is a trace file another agent left, not a live agent: nothing is sent and nothing runs. " +
			"Space shows its next transition, i its next model call, c the rest of the turn; " +
			"[ and ] move back and forward through the steps shown; every pane follows. " +
			"The steps glassbox cannot see, only infer, say so.")
	}
	return l.F("You follow the %s's run, read-only: each step they take appears here, every pane as it was then. "+
		"[ and ] move back and forward through the steps; space catches up with the latest. "+
		"Nothing you press reaches their run.", whom)
}

// Refusal is what a person in role r is told when they press a key that
// needs a (which r may not do); whom is whom a follower follows.
func (r Role) Refusal(l lang.Lang, a Ability, whom string) string {
	switch {
	case r == Follower:
		return l.F("read-only: you follow the %s's run (space catches up · [ ] go back in time · q quits)", whom)
	case r == Reader:
		return l.T("read-only: this is a trace file, not a live agent (space steps · [ ] go back in time · q quits)")
	case r == Tapper:
		return l.T("a tap shows another agent's calls: it cannot fork them or send a request — talk to the agent in its own terminal")
	case a == Roster:
		return l.T("R: the roster is the instructor's, in a served room (glassbox serve --instruct)")
	}
	return l.T("not here: this glass box does not offer that key")
}

// TutorGoLive is GoLive in every language, by its code ("en", "ja"): the
// offline tutor answers in the language of the request it was sent, and
// says this when asked what it cannot do (offline.Config.GoLive).
func (r Role) TutorGoLive() map[string]string {
	out := map[string]string{}
	for _, l := range lang.All {
		if s := r.GoLive(l); s != "" {
			out[l.String()] = s
		}
	}
	return out
}

// Flags says how to turn each provider's live service on with glassbox's
// own variables and flags, as registry.GoLive does, in language l: each
// dialect's way (GoLive.Say), the commands and flags as they are.
func Flags(l lang.Lang) string {
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
