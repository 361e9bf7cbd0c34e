package glassbox

// A fork or an abandoned event leaves steps behind. They are not lost: the
// session file keeps them, and the glass box keeps them too, so a learner
// can look at the road not taken (B) beside the one the run is on.

// branch is the steps a fork (or A) left behind, with their History entries.
type branch struct {
	from    int // the step the run went back to
	base    int // how many of the run's steps came before the branch
	entries int // how many History entries came before it
	steps   []stepRecord
	hist    []*historyEntry
}

// branchView is a branch shown in place of the run's own line: what the
// run's steps and History were before B swapped them.
type branchView struct {
	index   int // into r.branches
	steps   []stepRecord
	entries []*historyEntry
	cursor  int
}

// keepBranch remembers run r's steps after index i (and the History entries
// after entries) before a fork cuts them.
func keepBranch(r *runView, i, entries int) {
	if i+1 >= len(r.live.steps) {
		return
	}
	from := 0
	if i >= 0 {
		from = r.live.steps[i].t.Seq
	}
	b := branch{from: from, base: i + 1, entries: entries,
		steps: append([]stepRecord(nil), r.live.steps[i+1:]...), hist: r.history.since(entries)}
	r.branches = append(r.branches, b)
}

// toggleBranch is B: show the latest abandoned branch (again: the one
// before it, and so on), then the run's own line again.
func (c *forkController) toggleBranch() action {
	r := c.stepper.cur()
	switch {
	case r.busy:
		return say(c.lang.T("a step is in flight: B shows an abandoned branch once it is done"))
	case len(r.branches) == 0:
		return say(c.lang.T("no abandoned branch: f (fork) and A (abandon) leave one behind"))
	}
	next := len(r.branches) - 1
	if r.viewing != nil {
		next = r.viewing.index - 1
		r.leaveBranch()
		if next < 0 {
			return say(c.lang.T("back on the run's own line"))
		}
	}
	b := r.branches[next]
	base := min(b.base, len(r.live.steps))
	steps := append(append([]stepRecord(nil), r.live.steps[:base]...), b.steps...)
	own := r.history.show(append(r.history.upTo(b.entries), b.hist...))
	r.viewing = &branchView{index: next, steps: r.live.steps, entries: own, cursor: r.live.cursor}
	r.live.steps = steps
	r.live.cursor, r.live.pinned = len(steps)-1, true // all of it is the past
	r.followShown()
	return action{notice: c.lang.F("abandoned branch %d of %d (from step #%d, %d step%s): [ ] move through it; B shows the one before; a step key returns", next+1, len(r.branches), b.from, len(b.steps), plural(len(b.steps))), resize: true}
}

// inBranch says why f, F, A and w do nothing when a run the keys act on
// shows an abandoned branch (they act on the run's own line only), or "".
func (c *forkController) inBranch() string {
	for _, r := range c.stepper.targets() {
		if r.viewing != nil {
			return c.lang.T("this is an abandoned branch, shown to look at: B (until it is gone) or a step key returns to the run's own line")
		}
	}
	return ""
}

// leaveBranch puts the run's own line back after B.
func (r *runView) leaveBranch() {
	v := r.viewing
	if v == nil {
		return
	}
	r.live.steps, r.live.cursor, r.live.pinned = v.steps, v.cursor, false
	r.history.show(v.entries)
	r.viewing = nil
	r.followShown()
}
