package ui

import (
	"strings"

	"github.com/glassbox-dev/glassbox/ui/strip"
)

// stripPane is compare mode's comparison strip: each run's model call at the
// step its panes show (the latest, unless time travel shows an earlier one),
// one row per run, the cells that differ in bold. It belongs to no run: the
// parent owns it and lays it out above the runs. It takes no keys and does
// not scroll, so it is no component: it only draws, under its heading.
type stripPane struct{ runs []*runView }

func (c *stripPane) view(lk look, in rect) ([]string, string) {
	var names [2]string
	var calls [2]*strip.Call
	for i := 0; i < 2 && i < len(c.runs); i++ {
		names[i] = c.runs[i].title()
		calls[i] = c.runs[i].latestCall()
	}
	l := c.runs[0].lang
	body := strip.Render(l, in.w, names, calls, lk.th.Muted.Render, lk.th.Bold.Render)
	return strings.Split(body, "\n"), l.T("differences in bold")
}

// heading says which model call the strip compares: the latest, or the one
// time travel shows ("gemini: model call 2 of 3").
func (c *stripPane) heading() string {
	l := c.runs[0].lang
	var shown []string
	travelling := false
	for _, r := range c.runs {
		k, _ := r.callAt()
		n := len(r.callSteps())
		shown = append(shown, l.F("%s: model call %d of %d", r.title(), k, n))
		if k < n {
			travelling = true
		}
	}
	if !travelling {
		return l.T("Compare: the latest model call of each run")
	}
	return l.F("Compare: %s", strings.Join(shown, " · "))
}

// latestCall is the run's latest model call at the step the panes show, for
// the comparison strip; nil before the first call.
func (r *runView) latestCall() *strip.Call {
	for i := r.live.selectedIndex(); i >= 0; i-- {
		if c, ok := strip.FromTransition(r.title(), r.live.steps[i].t); ok {
			return &c
		}
	}
	return nil
}
