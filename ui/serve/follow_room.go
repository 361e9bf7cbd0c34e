package serve

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// maxFollowers is how many may follow a broadcast with no room around it
// (--broadcast) at once.
const maxFollowers = 100

// Broadcasting serves the run of the glass box cfg describes (its first
// run) to followers on o.Addr: the instructor's own glass box of
// `glassbox serve --instruct`, or a plain one with `glassbox --broadcast`
// (o.FollowOnly: a room with followers only). It hooks cfg so that every
// transition and the model call in flight are broadcast, the status bar
// counts the followers, and History says how to follow; out hears the
// same lines before the glass box opens. stop ends the broadcast and the
// room.
func Broadcasting(cfg *glassbox.Config, o Options, out io.Writer) (b *Broadcast, stop func(), err error) {
	if len(cfg.Runs) != 1 {
		return nil, nil, fmt.Errorf("%w: %s", agentrun.ErrUsage, lang.Lang(o.Run.Lang).T("a broadcast follows one run; it does not go with --compare"))
	}
	rc := &cfg.Runs[0]
	l := lang.Lang(o.Run.Lang)
	if o.FollowOnly && o.MaxLearners <= 0 {
		o.MaxLearners = maxFollowers
	}
	b = NewBroadcast(rc.Past)
	b.lang = l
	if cfg.Session != "" {
		b.Resync(cfg.Session, rc.Name, cfg.Secrets)
	}
	o.Broadcast, o.Instructor = b, InstructorView(*rc)
	s, err := New(o)
	if err != nil {
		return nil, nil, err
	}
	ln, err := s.listen()
	if err != nil {
		return nil, nil, err
	}
	var room strings.Builder
	s.Announce(&room, ln.Addr())
	fmt.Fprint(out, room.String())
	for _, line := range strings.Split(strings.TrimSpace(room.String()), "\n") {
		if !strings.Contains(line, "Ctrl-C") && !strings.Contains(line, l.T("q in the glass box ends the broadcast")) {
			rc.Notes = append(rc.Notes, strings.Join(strings.Fields(line), " "))
		}
	}
	if o.FollowOnly {
		rc.Notes = append(rc.Notes, l.T("your run is broadcast: whoever follows sees every step you take and the model's reply as it streams in (q here ends the broadcast)"))
	} else {
		rc.Notes = append(rc.Notes, l.T("your run is broadcast: whoever follows sees every step you take and the model's reply as it streams in (q here asks whether to end the room or keep serving it without you)"))
	}
	cfg.OnTransition, cfg.OnWire = b.Publish, b.PublishLive
	cfg.Status = func() (string, string) { return "followers", strconv.Itoa(b.Followers()) }
	cfg.Changed = b.Changed()
	cfg.Lang = l
	ctx, cancel := context.WithCancel(context.Background())
	if !o.FollowOnly {
		// serve --instruct: the instructor's roster (R) of the learners,
		// and what the room tells them while it is served.
		cfg.Room = &glassbox.Room{Roster: s.Roster, Notes: s.Notes()}
		cfg.Changed = either(ctx, b.Changed(), s.RosterChanged())
	}
	go s.Serve(ln)
	return b, func() {
		cancel()
		if !o.FollowOnly {
			b.EndRoom(whyClosed) // a room's followers are told it has ended
		}
		b.Close(time.Second)
		s.End(whyClosed, endGrace)
	}, nil
}

// endGrace is how long a room that ends waits for its glass boxes to say
// goodbye (each closes at once; a learner's step in flight is cancelled).
const endGrace = 5 * time.Second
