package tap

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// offlineHost is where calls to the built-in emulator appear to go: under
// the reserved .invalid domain, so a payload never looks as if it left
// the machine.
const offlineHost = "http://tap.offline.invalid"

// upstream is where the tap sends each family's calls, and through what.
type upstream struct {
	// all, when set, is the one address every family's calls go to.
	all *url.URL
	// own are the families' own services (no --upstream).
	own  map[string]*url.URL
	base http.RoundTripper
}

func newUpstream(opt Options) (upstream, error) {
	base := opt.Base
	if base == nil {
		base = http.DefaultTransport
	}
	switch opt.Upstream {
	case Offline:
		u, _ := url.Parse(offlineHost)
		return upstream{all: u, base: backend.SimulatedTransport(offline.Config{AnyModel: true})}, nil
	case "":
		up := upstream{own: map[string]*url.URL{}, base: base}
		for _, c := range opt.Codecs {
			if c.Endpoint == nil {
				continue
			}
			u, err := parseUpstream(c.Endpoint(opt.Getenv))
			if err != nil {
				return upstream{}, sentence.Errorf("the %s service's address: %w", c.Family, err)
			}
			up.own[c.Family] = u
		}
		return up, nil
	}
	u, err := parseUpstream(opt.Upstream)
	if err != nil {
		return upstream{}, sentence.Errorf("--upstream %s: %w", opt.Upstream, err)
	}
	return upstream{all: u, base: base}, nil
}

// parseUpstream reads an http or https URL with a host.
func parseUpstream(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, sentence.Errorf("want offline or a URL such as http://127.0.0.1:11434 or https://generativelanguage.googleapis.com")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// target is where a call to in goes for codec's family: the upstream's
// address, with its path (if any) before the agent's, and the agent's
// query.
func (u upstream) target(codec wire.Codec, in *url.URL) *url.URL {
	base := u.all
	if base == nil {
		base = u.own[codec.Family]
	}
	out := *base
	out.Path = base.Path + in.Path
	if in.RawPath != "" {
		out.RawPath = base.Path + in.RawPath
	}
	out.RawQuery = in.RawQuery
	return &out
}

// notItself refuses an upstream that is the tap's own address: every call
// would come back to the tap for ever (an OLLAMA_HOST that points at the
// tap, in the shell the tap was started from).
func (u upstream) notItself(addr net.Addr) error {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil
	}
	check := func(family string, v *url.URL) error {
		host, port, err := net.SplitHostPort(v.Host)
		if err != nil || port != portOf(tcp) {
			return nil
		}
		ip := net.ParseIP(host)
		if host == "localhost" || (ip != nil && (ip.Equal(tcp.IP) || ip.IsLoopback() && tcp.IP.IsLoopback() || tcp.IP.IsUnspecified())) {
			return sentence.Errorf("the %s calls would go to %s, which is the tap itself: set the upstream with --upstream, or unset the variable that points there in the tap's shell", family, v.Host)
		}
		return nil
	}
	if u.all != nil {
		return check("model", u.all)
	}
	for family, v := range u.own {
		if err := check(family, v); err != nil {
			return err
		}
	}
	return nil
}

func portOf(a *net.TCPAddr) string {
	_, p, _ := net.SplitHostPort(a.String())
	return p
}
