package glassbox

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

// frame draws the strip in rc, framed under its heading.
func (c *stripPane) frame(lk look, rc rect) []string {
	content, info := c.view(lk, rc.inner())
	return frame(lk.th, c.heading(), info, false, rc, content)
}

func (c *stripPane) view(lk look, in rect) ([]string, string) {
	var names [2]string
	var calls [2]*strip.Call
	for i := 0; i < 2 && i < len(c.runs); i++ {
		names[i] = c.runs[i].title()
		calls[i] = latestCall(c.runs[i])
	}
	l := c.runs[0].lang
	body := strip.Render(l, in.w, names, calls, lk.th.Muted.Render, lk.th.Bold.Render)
	return strings.Split(body, "\n"), l.T("differences in bold")
}

// heading says which model call the strip compares: the latest, or the one
// time travel shows ("NAME: model call 2 of 3").
func (c *stripPane) heading() string {
	l := c.runs[0].lang
	var shown []string
	travelling := false
	for _, r := range c.runs {
		k, _ := r.live.callAt()
		n := len(r.live.callSteps())
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

// latestCall is run r's latest model call at the step the panes show, for
// the comparison strip; nil before the first call.
func latestCall(r *runView) *strip.Call {
	for i := r.live.selectedIndex(); i >= 0; i-- {
		if c, ok := strip.FromTransition(r.title(), r.live.steps[i].t); ok {
			return &c
		}
	}
	return nil
}
