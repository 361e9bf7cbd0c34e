package ui

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

// keepBranch remembers the steps after index i (and the History entries
// after entries) before a fork cuts them.
func (r *runView) keepBranch(i, entries int) {
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
func (m *Model) toggleBranch() {
	r := m.cur()
	switch {
	case r.busy:
		m.notice = m.cfg.Lang.T("a step is in flight: B shows an abandoned branch once it is done")
		return
	case len(r.branches) == 0:
		m.notice = m.cfg.Lang.T("no abandoned branch: f (fork) and A (abandon) leave one behind")
		return
	}
	next := len(r.branches) - 1
	if r.viewing != nil {
		next = r.viewing.index - 1
		r.leaveBranch()
		if next < 0 {
			m.notice = m.cfg.Lang.T("back on the run's own line")
			return
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
	m.notice = m.cfg.Lang.F("abandoned branch %d of %d (from step #%d, %d step%s): [ ] move through it; B shows the one before; a step key returns", next+1, len(r.branches), b.from, len(b.steps), plural(len(b.steps)))
	m.syncSizes()
}

// inBranch reports (and says) that a run the keys act on shows an abandoned
// branch: forking, abandoning and what-if act on the run's own line only.
func (m *Model) inBranch() bool {
	for _, r := range m.targets() {
		if r.viewing != nil {
			m.notice = m.cfg.Lang.T("this is an abandoned branch, shown to look at: B (until it is gone) or a step key returns to the run's own line")
			return true
		}
	}
	return false
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
