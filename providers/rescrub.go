package providers

import (
	"net/http"
	"net/url"
	"slices"
)

// Exchange returns a copy of x redacted once more by the wire capture's
// rules: credential headers by name (request, response and wire headers),
// credential query parameters and a URL password, and every literal secret
// in the URL, the headers, the bodies, the chunks and the error. A page made
// from a session file (a handout) calls it on exchanges that were masked
// when they were captured, so that nothing a forged or older file carries
// reaches the page unmasked. Redacted lists what this pass masked, after
// what the capture had noted.
func (m *Masker) Exchange(x Exchange) Exchange {
	var n notes
	for _, s := range x.Redacted {
		n.add(s)
	}
	out := x
	if u, err := url.Parse(x.URL); err == nil {
		out.URL = m.r.url(u, &n)
	} else if s, ok := m.r.maskString(x.URL); ok {
		out.URL = s
		n.add("secret value in URL")
	}
	out.RequestHeaders = m.r.headers(http.Header(x.RequestHeaders), "", &n)
	out.ResponseHeaders = m.r.headers(http.Header(x.ResponseHeaders), "response ", &n)
	out.WireHeaders = nil
	for _, h := range x.WireHeaders {
		masked := m.r.headers(http.Header{h.Name: {h.Value}}, "", &n)
		h.Value = masked[h.Name][0]
		out.WireHeaders = append(out.WireHeaders, h)
	}
	body := func(b []byte, where string) []byte {
		masked, ok := m.r.maskBytes(b)
		if ok {
			n.add("secret value in " + where)
		}
		return masked
	}
	out.RequestBody = body(x.RequestBody, "request body")
	out.ResponseBody = body(x.ResponseBody, "response body")
	out.Chunks = slices.Clone(x.Chunks)
	for i := range out.Chunks {
		out.Chunks[i].Data = body(out.Chunks[i].Data, "response body")
	}
	out.Err = m.Mask(x.Err)
	out.Divergence = m.Mask(x.Divergence)
	out.Redacted = n
	return out
}
