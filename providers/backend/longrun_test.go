package backend

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/dialect"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/providers/offline"
)

// sentRequest is one request a provider sent, kept to be served again.
type sentRequest struct {
	method, path string
	header       http.Header
	body         []byte
}

// newRequest makes the request anew, for one ServeHTTP.
func (s sentRequest) newRequest() *http.Request {
	r := httptest.NewRequest(s.method, s.path, bytes.NewReader(s.body))
	r.Header = s.header.Clone()
	r.ContentLength = int64(len(s.body))
	return r
}

// keepRequests passes every request to next and keeps a copy of it.
type keepRequests struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent []sentRequest
}

func (k *keepRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body.Close()
	k.mu.Lock()
	k.sent = append(k.sent, sentRequest{r.Method, r.URL.RequestURI(), r.Header.Clone(), body})
	k.mu.Unlock()
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	return k.next.RoundTrip(r2)
}

// longConversation plays the iteration-limit lesson for calls model calls
// through d's real client and the offline simulation, the way the loop
// does (every reply and its tool's result appended to the history), with
// an MCP tool declared beside list_files. It returns every request sent.
func longConversation(tb testing.TB, d Dialect, calls int) []sentRequest {
	tb.Helper()
	ctx := context.Background()
	keep := &keepRequests{next: SimulatedTransport(offline.Config{})}
	p, err := d.Open(ctx, dialect.Conn{StandIn: true, Transport: keep})
	if err != nil {
		tb.Fatal(err)
	}
	lesson, ok := lessons.ByName("iteration-limit")
	if !ok {
		tb.Fatal("no iteration-limit lesson")
	}
	tools := []history.ToolSpec{
		{Name: "list_files", Description: "Lists the files under a path.", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Required: true}}},
		{Name: "notes__echo", Description: "Echoes the text (an MCP tool).", Params: []history.ParamSpec{{Name: "text", Type: history.TypeString}}},
	}
	msgs := []history.Message{{Role: history.RoleUser, Text: lesson.Request}}
	for range calls {
		resp, err := p.Call(ctx, providers.Request{System: "You are a coding agent.", Messages: msgs, Tools: tools})
		if err != nil {
			tb.Fatalf("%s: call %d: %v", d.Name, len(keep.sent), err)
		}
		msgs = append(msgs, resp.Message)
		for _, c := range resp.Message.ToolCalls {
			msgs = append(msgs, history.Message{Role: history.RoleTool, Result: &history.ToolResult{
				CallID: c.ID, Name: c.Name, Content: "README.md\nhello.py\nnotes/todo.txt\nold_log.txt"}})
		}
	}
	if len(keep.sent) != calls {
		tb.Fatalf("%s: %d requests for %d calls", d.Name, len(keep.sent), calls)
	}
	return keep.sent
}

// mallocs is how many heap allocations the process has made so far.
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// The simulation's work per model call does not grow with the
// conversation (issue 29: a regular expression over the whole request on
// every call made long runs twice as slow; before that, decoding every
// request whole made them quadratic). Each request repeats the whole
// conversation, so whatever reads all of it again allocates in proportion
// to its length; the simulation reads only the turns the last request did
// not have. Measured in heap allocations, which do not depend on the
// machine's load: the 300th call of the iteration-limit lesson may cost
// no more than the 10th, in every dialect.
func TestEmulatorWorkPerCallDoesNotGrow(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 300 model calls per dialect")
	}
	const calls = 300
	for _, d := range Dialects() {
		t.Run(d.Name, func(t *testing.T) {
			sent := longConversation(t, d, calls)
			h := Simulation(offline.Config{})
			allocs := make([]uint64, len(sent))
			read := make([]uint64, len(sent))
			for i, s := range sent {
				r, w := s.newRequest(), httptest.NewRecorder()
				before, readBefore := mallocs(), h.BytesRead()
				h.ServeHTTP(w, r)
				allocs[i], read[i] = mallocs()-before, uint64(h.BytesRead()-readBefore)
				if w.Code != http.StatusOK {
					t.Fatalf("call %d: %d %s", i+1, w.Code, w.Body)
				}
			}
			for _, m := range []struct {
				what        string
				cost        []uint64
				early, late uint64
			}{
				{"heap allocations", allocs, median(allocs[5:15]), median(allocs[calls-10:])},
				{"bytes read", read, median(read[5:15]), median(read[calls-10:])},
			} {
				t.Logf("%s per call: %d around call 10, %d around call %d (request: %d bytes, then %d)",
					m.what, m.early, m.late, calls, len(sent[10].body), len(sent[calls-1].body))
				// The answer's own text grows by a digit ("check 100"); the
				// conversation grew thirtyfold.
				if m.late > m.early+m.early/10+5 {
					t.Errorf("call %d costs %d %s, call 10 %d: the simulation reads the whole conversation on every call", calls, m.late, m.what, m.early)
				}
			}
		})
	}
}

func median(xs []uint64) uint64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkEmulatorConversation is the simulation's side of a long run:
// the requests of the iteration-limit lesson's first N calls, recorded
// from the real clients once, served in order by a new simulation.
//
//	go test -run XXX -bench EmulatorConversation -benchtime 5x ./providers/backend
func BenchmarkEmulatorConversation(b *testing.B) {
	for _, d := range Dialects() {
		for _, n := range []int{100, 1000} {
			b.Run(d.Name+"/"+strconv.Itoa(n)+"-calls", func(b *testing.B) {
				sent := longConversation(b, d, n)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					h := Simulation(offline.Config{})
					for _, s := range sent {
						h.ServeHTTP(httptest.NewRecorder(), s.newRequest())
					}
				}
			})
		}
	}
}
