package tap

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// IsCassette says the cassette at path is a tap's (glassbox tap --record):
// glassbox --replay plays it back through a tap, not to its own agent.
func IsCassette(path string) bool {
	if path == "" {
		return false
	}
	c, err := providers.LoadCassette(path)
	return err == nil && c.Header.Provider == CassetteProvider
}

// Replay plays a tap's cassette back through a tap, with no agent and no
// network: each recorded request is sent again, in the order it was
// recorded, as the agent sent it, and answered with its recorded reply
// (providers.ReplayTransport, which flags a request that differs — a
// what-if edit). The tap holds and steps the calls as it does a live
// agent's (opt.Mode), until ctx ends; Close ends it too.
func Replay(ctx context.Context, c *providers.Cassette, opt Options) (*Tap, error) {
	if c.Header.Provider != CassetteProvider {
		return nil, sentence.Errorf("this cassette was recorded from glassbox's own agent (%s), not by a tap", c.Header.Provider)
	}
	if opt.Codecs == nil {
		opt.Codecs = backend.Wire()
	}
	var calls []providers.Exchange
	var upstream *url.URL
	for _, x := range c.Exchanges {
		if _, route, ok := opt.Codecs.Detect(x.Method, x.URL); ok && route == wire.ModelCall {
			calls = append(calls, x)
			if upstream == nil {
				upstream, _ = url.Parse(x.URL)
			}
		}
	}
	if upstream == nil {
		return nil, sentence.Errorf("the cassette holds no model call to replay")
	}
	opt.Upstream = upstream.Scheme + "://" + upstream.Host
	opt.Base = providers.NewReplayTransport(&providers.Cassette{Header: c.Header, Exchanges: calls})
	t, err := New(opt)
	if err != nil {
		return nil, err
	}
	go t.replay(ctx, c.Exchanges)
	return t, nil
}

// replay is the recorded agent: it sends each request again, one after
// the other, as the agent did, and waits for its reply.
func (t *Tap) replay(ctx context.Context, xs []providers.Exchange) {
	for _, x := range xs {
		u, err := url.Parse(x.URL)
		if err != nil || ctx.Err() != nil {
			return
		}
		req := httptest.NewRequestWithContext(ctx, x.Method, u.RequestURI(), bytes.NewReader(x.RequestBody))
		req.Header = http.Header(x.RequestHeaders).Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		t.ServeHTTP(httptest.NewRecorder(), req)
		t.mu.Lock()
		closed := t.closing || t.closed
		t.mu.Unlock()
		if closed {
			return
		}
	}
	t.queue(job{note: sentence.Errorf("the recording ends here: its %d calls were played back", len(xs))})
}
