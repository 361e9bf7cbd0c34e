package offline

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// Config tunes the simulation.
type Config struct {
	// Latency is the simulated time each model call takes (generateContent,
	// streamGenerateContent, /api/chat). A stream spends half of it before
	// the first chunk and spreads the rest between chunks, so a learner can
	// watch chunks arrive. Zero answers at once. The wait ends early when the
	// request's context is cancelled.
	Latency time.Duration
	// GoLive is how the person at the glass box reaches a real model, by
	// language code ("en", "ja"): what the tutor says, in the request's
	// language, to a request it does not know. The front end words it for
	// who that person is (ui/role): a learner in a room asks the instructor.
	// Without it the tutor names glassbox's flags.
	GoLive map[string]string
	// AnyModel answers a call to any model name, where a simulated server
	// otherwise has only its own: behind glassbox tap, an agent asks for
	// the model it was set up with.
	AnyModel bool
}

// ModelVersion is the model the simulated servers say answered, so no
// payload ever pretends to come from a real model.
const ModelVersion = "glassbox-offline-tutor"

// maxBody is the largest request body the simulated servers accept.
const maxBody = 32 << 20

// An Emulator is one API's side of the simulation, written by the package
// of the dialect that speaks it (a dialect.Descriptor carries it; the
// dialects of one API share it): which paths it answers, and a handler for
// them made for one Tutor. The handler reads a request into the neutral
// conversation (a Folder, usually continued through a TurnCache), asks
// the Tutor for the reply, and writes it in the API's own shapes.
type Emulator struct {
	// Name is the API's name, for the answer to a path no emulator claims.
	Name string
	// Paths are the paths it answers, as a person reads them
	// ("POST /api/chat"), for that answer too.
	Paths []string
	// Claims reports whether a path (no query) is the API's. A path it
	// claims but does not serve gets the API's own 404.
	Claims func(path string) bool
	// New makes the handler, once for each Server.
	New func(t *Tutor) http.Handler
}

// serves says path is one of the emulator's Paths ("POST /v1/messages").
func (e *Emulator) serves(path string) bool {
	for _, p := range e.Paths {
		if _, served, _ := strings.Cut(p, " "); served == path {
			return true
		}
	}
	return false
}

// Server is the simulation as one http.Handler: each request goes to the
// emulator that claims its path, whatever the host, so one Server answers
// every SDK.
type Server struct {
	tutor  *Tutor
	routes []route
}

type route struct {
	emu     *Emulator
	handler http.Handler
}

var _ http.Handler = (*Server)(nil)

// NewHandler returns the simulated servers of emulators as an
// http.Handler, for NewTransport or, when a learner wants to curl it, a
// real http.Server. providers/backend passes every registered dialect's.
func NewHandler(cfg Config, emulators ...*Emulator) *Server {
	s := &Server{tutor: NewTutor(cfg)}
	for _, e := range emulators {
		if !slices.ContainsFunc(s.routes, func(r route) bool { return r.emu == e }) {
			s.routes = append(s.routes, route{emu: e, handler: e.New(s.tutor)})
		}
	}
	return s
}

// BytesRead is how many bytes of the requests it has served the
// simulation has decoded or searched: each request's new turns, not the
// conversation it repeats (Body). The tests and benchmarks that hold long
// runs to linear work read it.
func (s *Server) BytesRead() int64 { return s.tutor.read.Load() }

// ServeHTTP hands the request to the emulator that serves its path (one
// of its Paths, exactly), else to the first that claims it; a path none
// claims gets a 404 that lists what the simulation serves. An API that
// claims a whole prefix for its own 404s (the chat completions API claims
// /v1/) so never takes a path another API serves (POST /v1/messages),
// whatever the order the dialects were registered in.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for _, rt := range s.routes {
		if rt.emu.serves(r.URL.Path) {
			rt.handler.ServeHTTP(w, r)
			return
		}
	}
	for _, rt := range s.routes {
		if rt.emu.Claims(r.URL.Path) {
			rt.handler.ServeHTTP(w, r)
			return
		}
	}
	var served []string
	for _, rt := range s.routes {
		served = append(served, rt.emu.Name+": "+strings.Join(rt.emu.Paths, ", "))
	}
	WriteJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf(
		"404 page not found: %s (the glassbox offline simulation serves %s)", r.URL.Path, strings.Join(served, "; "))})
}

// Tutor is what every emulator of one Server shares: the tutor model that
// decides each reply, the simulated latency, the rate-limit lesson's
// attempt counter, and the count of request bytes read.
type Tutor struct {
	cfg      Config
	attempts attemptCounter
	// read counts the bytes of requests decoded or searched (Body).
	read atomic.Int64
}

// NewTutor makes the tutor of one Server (NewHandler makes one for its
// emulators; a test may ask one directly).
func NewTutor(cfg Config) *Tutor {
	return &Tutor{cfg: cfg, attempts: attemptCounter{seen: map[[32]byte]int{}}}
}

// Body holds a request body the emulator is about to read: what it reads
// of it is counted (Server.BytesRead).
func (t *Tutor) Body(raw []byte) Body { return Body{b: raw, read: &t.read} }

// RequireMethod answers 405, in the {"error": "..."} shape the Ollama and
// chat completions APIs share, unless r uses one of methods.
func RequireMethod(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	if slices.Contains(methods, r.Method) {
		return true
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": fmt.Sprintf("method %s not allowed on %s", r.Method, r.URL.Path)})
	return false
}

// ReadBody reads a request body up to maxBody.
func ReadBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := providers.ReadBody(io.LimitReader(r.Body, maxBody+1), min(r.ContentLength, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("request body is larger than %d bytes", maxBody)
	}
	return b, nil
}

// ModelCall is one model call read into the neutral conversation
// (Folder.Call), whichever API it came through.
type ModelCall struct {
	conv Conversation
	// tools is false when the request declared no tools (and, for Ollama,
	// asked for no JSON format): the tutor can only answer in text.
	tools bool
	// size is the request body's length (the usage the simulation reports
	// is reckoned from it).
	size int
	// turns sums the conversation the request carries (Folder.turns): with
	// size, it keys the rate-limit counter and seeds the deterministic ids
	// and signatures.
	turns [sha256.Size]byte
}

// Size is the request body's length.
func (m ModelCall) Size() int { return m.size }

// Request is the person's latest request the conversation holds, and Steps
// what happened since: what the tutor decides from, for an emulator's
// tests of its reading.
func (m ModelCall) Request() string { return m.conv.request }

// Steps are the assistant turns, tool results and the loop's feedback since
// the request (Request).
func (m ModelCall) Steps() []Turn { return m.conv.steps }

// Misfired reports whether the model already produced, since the request,
// something the loop could not use.
func (m ModelCall) Misfired() bool { return m.conv.misfired() }

// MCPTools are the MCP tools the request declares (Folder.Call).
func (m ModelCall) MCPTools() []string { return m.conv.mcpTools }

// Declaring is the call with the tools its request declares, each with
// its parameters' JSON Schema: a foreign agent's tools (not glassbox's)
// are driven by what they are for (foreign.go). An emulator passes every
// tool it read.
func (m ModelCall) Declaring(tools []DeclaredTool) ModelCall {
	m.conv.roles = bindRoles(tools)
	return m
}

// Say is en or ja, in the language of the request (the tutor answers in
// it): for the words an emulator writes itself.
func (m ModelCall) Say(en, ja string) string { return m.conv.lang.say(en, ja) }

// Digest is a deterministic sum of the request for label: the same
// conversation always gets the same ids, and no part of it is read again
// to make them (a hash of the whole body on every call made long runs
// quadratic).
func (m ModelCall) Digest(label string) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00", label, m.size)
	h.Write(m.turns[:])
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// CallID is a deterministic id for the reply's tool call number index, in
// the form Ollama and the chat completions API use: "call_" and 8
// characters of [a-z0-9].
func (m ModelCall) CallID(index int) string {
	sum := m.Digest(fmt.Sprintf("glassbox offline call %d", index))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	id := []byte("call_")
	for _, b := range sum[:8] {
		id = append(id, alphabet[int(b)%len(alphabet)])
	}
	return string(id)
}

// Fault is the error Answer returns when the lesson answers with an HTTP
// error instead of a model reply; the emulator writes it in its API's own
// error shape.
type Fault struct {
	status int
	fault  fault
}

func (e Fault) Error() string { return fmt.Sprintf("simulated HTTP %d", e.status) }

// Status is the HTTP status to answer with: 429, 503 or 404.
func (e Fault) Status() int { return e.status }

// UnknownModel says the lesson's server does not have the model (404).
func (e Fault) UnknownModel() bool { return e.fault == faultUnknownModel }

// Overloaded says the service is down (503); otherwise it is rate
// limited (429).
func (e Fault) Overloaded() bool { return e.fault == faultOutage }

// Answer waits out the simulated latency (or the part of it before the
// first byte), then decides: a Fault the lesson demonstrates, or the
// tutor's reply. It returns ctx's error when the caller gave up while
// waiting.
func (t *Tutor) Answer(ctx context.Context, m ModelCall, wait time.Duration) (Reply, error) {
	if err := Sleep(ctx, wait); err != nil {
		return Reply{}, err
	}
	if l, ok := lessons.ForRequest(m.conv.request); ok {
		switch faults[l.Name] {
		case faultOutage:
			return Reply{}, Fault{http.StatusServiceUnavailable, faultOutage}
		case faultUnknownModel:
			return Reply{}, Fault{http.StatusNotFound, faultUnknownModel}
		case faultRateLimitFirst:
			// Only the lesson's first model call is limited, and only on
			// every other attempt of the same request: the loop's retry
			// succeeds, and running the lesson again shows the 429 again.
			if len(m.conv.steps) == 0 && t.attempts.next(m.Digest("glassbox offline attempt"))%2 == 0 {
				return Reply{}, Fault{http.StatusTooManyRequests, faultRateLimitFirst}
			}
		}
	}
	conv := m.conv
	conv.goLive = t.cfg.GoLive[conv.lang.code()]
	if conv.roles.foreign() {
		// A foreign agent's tools: the tutor decides in glassbox's.
		conv.roles.workdir = conv.workdir
		conv = conv.roles.inward(conv)
	}
	r := decide(conv)
	switch {
	case !m.tools:
		r = withoutTools(r, conv.lang)
	case conv.roles.foreign():
		r = conv.roles.outward(r, conv.lang)
	}
	return r, nil
}

// APIErrors writes a lesson's faults in one API's own error shape.
type APIErrors struct {
	// NotFound writes the API's 404 for a model it does not have.
	NotFound func()
	// Fault writes status, overloaded (503) or rate limited (429).
	Fault func(status int, overloaded bool)
}

// Wrote answers err from Answer: a lesson's fault is written (with
// Retry-After: 1 where the client may come back); a caller that gave up
// gets nothing. It reports whether the call ends here.
func (a APIErrors) Wrote(w http.ResponseWriter, err error) bool {
	var f Fault
	switch {
	case errors.As(err, &f) && f.UnknownModel():
		a.NotFound()
	case errors.As(err, &f):
		w.Header().Set("Retry-After", "1")
		a.Fault(f.status, f.Overloaded())
	}
	return err != nil
}

// Sleep waits d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Pacer spaces the events of a streamed reply: each is due at a fixed time
// after the first (once the client has taken it), so the timer's own
// overhead does not add up over hundreds of tokens and every dialect takes
// the same time for the same answer.
type Pacer struct {
	ctx   context.Context
	delay time.Duration
	first time.Time
	due   time.Duration // when the latest event was due, after the first
	sent  int
}

// NewPacer paces events delay apart until ctx ends.
func NewPacer(ctx context.Context, delay time.Duration) *Pacer {
	return &Pacer{ctx: ctx, delay: delay}
}

// Wait waits until the next event is due (the first, at once); false when
// the caller gave up meanwhile.
func (p *Pacer) Wait() bool {
	if p.sent == 0 {
		return true
	}
	p.due += p.delay
	return Sleep(p.ctx, time.Until(p.first.Add(p.due))) == nil
}

// Sent counts an event written; the first starts the clock.
func (p *Pacer) Sent() {
	if p.sent == 0 {
		p.first = time.Now()
	}
	p.sent++
}

// Elapsed is when the latest event was due, after the first.
func (p *Pacer) Elapsed() time.Duration { return p.due }

// ModelKnown reports whether the simulated server has model: its own
// (known), or any name with Config.AnyModel.
func (t *Tutor) ModelKnown(model string, known ...string) bool {
	return t.cfg.AnyModel || slices.Contains(known, model)
}

// ChunkDelay spreads the second half of the latency over n chunks.
func (t *Tutor) ChunkDelay(n int) time.Duration {
	if n <= 1 || t.cfg.Latency <= 0 {
		return 0
	}
	return t.cfg.Latency / 2 / time.Duration(n-1)
}

// FirstByteDelay is the part of the latency before the response headers:
// all of it for a single answer, half of it for a stream.
func (t *Tutor) FirstByteDelay(stream bool) time.Duration {
	if stream {
		return t.cfg.Latency / 2
	}
	return t.cfg.Latency
}

// attemptCounter counts attempts per request body; it belongs to one Server
// and is safe for concurrent use.
type attemptCounter struct {
	mu   sync.Mutex
	seen map[[32]byte]int
}

// next returns how many times key was seen before, and counts this time.
func (a *attemptCounter) next(key [32]byte) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.seen[key]
	a.seen[key] = n + 1
	return n
}

// WriteJSON writes v as a JSON body with its Content-Length.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"` + strings.ReplaceAll(err.Error(), `"`, `'`) + `"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// Tokens estimates a token count the way the simulation reports usage:
// about four bytes per token, at least one.
func Tokens(n int) int {
	return max(1, n/4)
}
