package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/providers"
)

// Request bodies that repeat the conversation are stored as what is new,
// and read back whole.
func TestExchangesAreStoredAsDifferences(t *testing.T) {
	path, w := exchangeSession(t)
	var x exchangeWriter
	var bodies [][]byte
	var spans []*session.Span
	var conv bytes.Buffer
	total := 0
	for i := range 100 {
		fmt.Fprintf(&conv, `{"role":"user","parts":[{"text":"turn %d %s"}]},`, i, bytes.Repeat([]byte("x"), 200))
		body := []byte(`{"contents":[` + conv.String() + `{}],"n":` + fmt.Sprint(i) + `}`)
		exs := []providers.Exchange{{Method: "POST", RequestBody: body, ResponseBody: []byte(`{"ok":true}`), Status: 200}}
		if i == 50 {
			exs = append(exs, providers.Exchange{Method: "POST", RequestBody: []byte("short"), Status: 429})
		}
		span, err := x.write(w, exs)
		if err != nil {
			t.Fatal(err)
		}
		bodies, spans = append(bodies, body), append(spans, span)
		total += len(body)
	}
	w.Close()
	reader := NewExchangeReader(path, 0)
	for i, span := range spans {
		got, err := reader.Load(session.Record{Seq: i + 1, Exchanges: span})
		if i%7 == 0 { // read alone too, without what the reader remembers
			got, err = LoadExchanges(path, session.Record{Seq: i + 1, Exchanges: span})
		}
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if !bytes.Equal(got[0].RequestBody, bodies[i]) || string(got[0].ResponseBody) != `{"ok":true}` {
			t.Fatalf("request %d came back different", i)
		}
	}
	st, _ := os.Stat(session.ExchangesFile(path))
	if st.Size()*5 > int64(total) {
		t.Fatalf("the exchanges take %d bytes for %d bytes of bodies: not stored as differences", st.Size(), total)
	}
}

// Late in a long session each request is megabytes: reading one back walks
// up to keyframeEvery differences, and the reader keeps no more than
// readerCacheBytes of what it rebuilt (the latest always), reading in any
// order and still giving every body back whole.
func TestExchangeReaderKeepsItsMemoryBounded(t *testing.T) {
	path, w := exchangeSession(t)
	var x exchangeWriter
	var bodies [][]byte
	var spans []*session.Span
	conv := bytes.Repeat([]byte(`{"role":"user","parts":[{"text":"earlier"}]},`), 40000) // ~1.8 MB
	for i := range 40 {
		conv = fmt.Appendf(conv, `{"role":"model","parts":[{"text":"turn %d"}]},`, i)
		body := []byte(`{"contents":[` + string(conv) + `{}]}`)
		span, err := x.write(w, []providers.Exchange{{Method: "POST", RequestBody: body, Status: 200}})
		if err != nil {
			t.Fatal(err)
		}
		bodies, spans = append(bodies, body), append(spans, span)
	}
	w.Close()
	// Request 31 is thirty-one differences from the one kept whole: read
	// alone, it costs about its own size (the file's bytes, the whole one
	// decoded, the result), not a copy per difference.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := NewExchangeReader(path, 0).LoadAt(*spans[31]); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(10*len(bodies[31])) {
		t.Errorf("reading request 31 allocated %d bytes for a %d-byte body", got, len(bodies[31]))
	}
	reader := NewExchangeReader(path, 0)
	for _, i := range []int{39, 38, 5, 31, 32, 39, 0, 20} {
		got, err := reader.LoadAt(*spans[i])
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if !bytes.Equal(got[0].RequestBody, bodies[i]) {
			t.Fatalf("request %d came back different", i)
		}
		if reader.bytes > readerCacheBytes+len(bodies[i]) || reader.bytes != bodyBytes(cached(reader)) {
			t.Fatalf("after request %d the reader keeps %d bytes (counted %d), over %d", i, bodyBytes(cached(reader)), reader.bytes, readerCacheBytes)
		}
	}
}

// cached is every exchange the reader remembers.
func cached(r *ExchangeReader) []providers.Exchange {
	var all []providers.Exchange
	for _, x := range r.cache {
		all = append(all, x...)
	}
	return all
}

// A damaged exchanges file gets a clear error, never a wrong body or a panic.
func TestExchangeReaderRefusesDamagedChains(t *testing.T) {
	path, w := exchangeSession(t)
	put := func(stored ...storedExchange) session.Span {
		data, err := json.Marshal(stored)
		if err != nil {
			t.Fatal(err)
		}
		span, err := w.WriteExchanges(data)
		if err != nil {
			t.Fatal(err)
		}
		return *span
	}
	whole := put(storedExchange{Exchange: providers.Exchange{RequestBody: bytes.Repeat([]byte("a"), 600)}})
	pastTheEnd := put(storedExchange{Exchange: providers.Exchange{RequestBody: []byte("b")}, BodyFrom: &bodyRef{At: whole, Prefix: 601}})
	noSuchExchange := put(storedExchange{Exchange: providers.Exchange{RequestBody: []byte("b")}, BodyFrom: &bodyRef{At: whole, Index: 3, Prefix: 1}})
	last := whole
	for range keyframeEvery + 2 { // a chain no writer makes: longer than keyframeEvery
		last = put(storedExchange{Exchange: providers.Exchange{RequestBody: []byte("c")}, BodyFrom: &bodyRef{At: last, Prefix: 600}})
	}
	w.Close()
	for name, c := range map[string]struct {
		span session.Span
		want string
	}{
		"prefix past the end": {pastTheEnd, "refers to bytes that are not there"},
		"no such exchange":    {noSuchExchange, "refers to bytes that are not there"},
		"too long a chain":    {last, "refers back too far"},
	} {
		_, err := NewExchangeReader(path, 0).LoadAt(c.span)
		if !errors.Is(err, session.ErrCorrupt) || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%s: %v, want a corrupt-session error saying %q", name, err, c.want)
		}
	}
}

// exchangeSession starts a session file for exchanges to be written beside.
func exchangeSession(t *testing.T) (string, *session.Writer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := session.Create(path, session.Header{Started: time.Now(), Runs: []session.RunInfo{{Provider: "gemini"}}})
	if err != nil {
		t.Fatal(err)
	}
	return path, w
}
