package tapbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/loop/tap"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/serve"
)

// glassBox shows the tap in the full-screen glass box until q, or until
// ctx ends (a signal); with --broadcast, to followers too.
func (k *tapped) glassBox(ctx context.Context, intro []string, stdout io.Writer) error {
	cfg := k.config(intro)
	if k.o.Broadcast != "" {
		dir, _ := agentrun.SessionDir(os.Getenv)
		_, stop, err := serve.Broadcasting(&cfg, serve.Options{Addr: k.o.Broadcast, FollowOnly: true, StateDir: filepath.Dir(dir),
			Run: agentrun.Config{Lang: k.o.Lang.String(), Version: k.o.Version}}, stdout)
		if err != nil {
			return err
		}
		defer stop()
	}
	return glassbox.Run(glassbox.Context(ctx), cfg)
}

// config is the glass box of the tap: one run with no engine, its steps
// from the tap, its past from a resumed session, its payloads read back
// from the session when they are no longer kept in memory.
func (k *tapped) config(intro []string) glassbox.Config {
	var mu sync.Mutex
	var reader *loop.ExchangeReader
	rc := glassbox.RunConfig{Label: "tap", Backend: tap.CassetteProvider, Banner: intro[0], Provider: tap.CassetteProvider,
		Model: k.upstreamLabel(), Past: k.past}
	if k.path != "" {
		path := k.path
		rc.Exchanges = func(t *loop.Transition) ([]providers.Exchange, error) {
			if t.ExchangesAt == nil {
				return nil, fmt.Errorf("step %d keeps no payload", t.Seq)
			}
			mu.Lock()
			defer mu.Unlock()
			if reader == nil {
				reader = loop.NewExchangeReader(path, 0)
			}
			return reader.LoadAt(*t.ExchangesAt)
		}
	}
	return glassbox.Config{Lang: k.o.Lang, NoColor: os.Getenv("NO_COLOR") != "", Runs: []glassbox.RunConfig{rc},
		Tap: &glassbox.Tap{Source: k.tap, Intro: intro}, Session: k.path, Secrets: k.tap.Secrets(), Breakpoints: k.o.Breaks}
}
