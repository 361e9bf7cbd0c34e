// Package wiretest helps tests that script a server byte by byte: it tells
// the server how much of its response the client has read, so the next
// write arrives in a read of its own.
package wiretest

import (
	"io"
	"net/http"
)

// SignalReads is an http.RoundTripper (the network, under the wire
// capture) that sends on Sig how many bytes each read of a response body
// took.
type SignalReads struct{ Sig chan<- int }

// RoundTrip sends req with http.DefaultTransport.
func (s SignalReads) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = &signalBody{ReadCloser: resp.Body, sig: s.Sig}
	}
	return resp, err
}

type signalBody struct {
	io.ReadCloser
	sig chan<- int
}

func (b *signalBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.sig <- n
	}
	return n, err
}
