package tapbox

import (
	"context"
	"fmt"
	"os"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/breakpoint"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// IsCassette says path is a tap's cassette (glassbox tap --record), which
// glassbox --replay steps through a tap rather than to its own agent.
func IsCassette(path string) bool { return tap.IsCassette(path) }

// Replay is glassbox --replay FILE for a tap's cassette: the recorded
// agent's calls, sent again in order and answered from the recording, held
// and stepped in the glass box as the agent's were — no agent, no network.
// Breakpoints bps hold the calls c lets go, as a live tap's do.
func Replay(ctx context.Context, path string, bps []breakpoint.Breakpoint, l lang.Lang) error {
	c, err := providers.LoadCassette(path)
	if err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tp, err := tap.Replay(rctx, c, tap.Options{Mode: tap.Stepping, Getenv: os.Getenv, Breakpoints: bps})
	if err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	defer tp.Close()
	intro := []string{
		l.F("replaying the tap's cassette %s: the agent's calls as they were recorded — no agent, no network", path),
		l.T("space sends each recorded request and delivers its recorded reply · c plays the rest · w edits a request (the reply stays the recorded one, and the difference is flagged)"),
		l.T("a tap sees the model calls only: the agent's own approvals and the tools it runs happen out of sight (those steps are marked inferred)"),
	}
	rc := glassbox.RunConfig{Label: "tap", Backend: "replay", Banner: intro[0], Provider: tap.CassetteProvider, Model: path}
	return glassbox.Run(glassbox.Context(ctx), glassbox.Config{Lang: l, NoColor: os.Getenv("NO_COLOR") != "", Runs: []glassbox.RunConfig{rc},
		Tap: &glassbox.Tap{Source: tp, Intro: intro}, Secrets: tp.Secrets(), Breakpoints: bps})
}
