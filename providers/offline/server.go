package offline

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
)

// Config tunes the simulation.
type Config struct {
	// Latency is the simulated time each model call takes (generateContent,
	// streamGenerateContent, /api/chat). A stream spends half of it before
	// the first chunk and spreads the rest between chunks, so a learner can
	// watch chunks arrive. Zero answers at once. The wait ends early when the
	// request's context is cancelled.
	Latency time.Duration
	// AnyModel answers a call to any model name, where the simulated
	// Ollama otherwise has only defaultOllamaModel: behind glassbox tap,
	// an agent asks for the model it was set up with.
	AnyModel bool
}

// ModelVersion is what the simulated Gemini reports as modelVersion, so no
// payload ever pretends to come from a real model.
const ModelVersion = "glassbox-offline-tutor"

// maxBody is the largest request body the simulated servers accept.
const maxBody = 32 << 20

// Server is the simulated Gemini and Ollama API in one http.Handler. It
// routes by URL path, whatever the host, so one Server answers both SDKs.
// Its only state is the attempt counter of the rate-limit lesson.
type Server struct {
	cfg      Config
	attempts attemptCounter
	// Each dialect remembers the turns it has read: every request repeats
	// the whole conversation, and reading it again each time made long
	// sessions quadratic (see turnCache).
	gemini geminiSide
	ollama turnCache[ollamaTurns]
	openAI turnCache[openAITurns]
	// read counts the bytes of requests decoded or searched (requestBody).
	read atomic.Int64
}

var _ http.Handler = (*Server)(nil)

// NewHandler returns the simulated servers as an http.Handler, for
// NewTransport or, when a learner wants to curl it, a real http.Server.
func NewHandler(cfg Config) *Server {
	return &Server{cfg: cfg, attempts: attemptCounter{seen: map[[32]byte]int{}}}
}

// ServeHTTP routes one request:
//
//	POST /v1beta/models/{model}:generateContent           Gemini
//	POST /v1beta/models/{model}:streamGenerateContent     Gemini, SSE with ?alt=sse
//	POST /api/chat                                        Ollama, NDJSON unless "stream": false
//	POST /v1/chat/completions                             OpenAI-compatible, SSE with "stream": true
//	GET  /api/tags, POST /api/show, GET /api/version      Ollama model info
//	GET  /                                                "Ollama is running"
//
// Anything else is a 404 in the shape of the API the path belongs to.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.Contains(p, "/models/") && strings.Contains(p, ":"):
		s.serveGemini(w, r)
	case strings.HasSuffix(p, "/chat/completions"):
		if requireMethod(w, r, http.MethodPost) {
			s.serveOpenAIChat(w, r)
		}
	case strings.HasSuffix(p, "/api/chat"):
		if requireMethod(w, r, http.MethodPost) {
			s.serveOllamaChat(w, r)
		}
	case strings.HasSuffix(p, "/api/tags"):
		if requireMethod(w, r, http.MethodGet, http.MethodHead) {
			serveOllamaTags(w)
		}
	case strings.HasSuffix(p, "/api/show"):
		if requireMethod(w, r, http.MethodPost) {
			s.serveOllamaShow(w, r)
		}
	case strings.HasSuffix(p, "/api/version"):
		if requireMethod(w, r, http.MethodGet, http.MethodHead) {
			writeJSON(w, http.StatusOK, map[string]string{"version": ollamaVersion})
		}
	case p == "/" || p == "":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "Ollama is running (glassbox offline simulation)")
	case strings.HasPrefix(p, "/v1"):
		writeGeminiError(w, http.StatusNotFound, "NOT_FOUND",
			fmt.Sprintf("%s is not served by the glassbox offline simulation; it answers models/{model}:generateContent and :streamGenerateContent.", p), nil)
	default:
		writeOllamaError(w, http.StatusNotFound,
			fmt.Sprintf("404 page not found: %s (the glassbox offline simulation serves /api/chat, /api/tags, /api/show and /api/version)", p))
	}
}

// requireMethod answers 405 unless r uses one of methods.
func requireMethod(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	writeOllamaError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s", r.Method, r.URL.Path))
	return false
}

// BytesRead is how many bytes of the requests it has served the
// simulation has decoded or searched: each request's new turns, not the
// conversation it repeats (requestBody). The tests and benchmarks that
// hold long runs to linear work read it.
func (s *Server) BytesRead() int64 { return s.read.Load() }

// request holds a body the simulation is about to read.
func (s *Server) request(body []byte) requestBody { return requestBody{b: body, read: &s.read} }

// readBody reads a request body up to maxBody.
func readBody(r *http.Request) ([]byte, error) {
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

// modelCall is one parsed model call, whichever API it came through.
type modelCall struct {
	conv conversation
	// tools is false when the request declared no tools (and, for Ollama,
	// asked for no JSON format): the tutor can only answer in text.
	tools bool
	// size is the request body's length (the usage the simulation reports
	// is reckoned from it).
	size int
	// turns sums the conversation the request carries (folder.turns): with
	// size, it keys the rate-limit counter and seeds the deterministic ids
	// and signatures.
	turns [sha256.Size]byte
}

// digest is a deterministic sum of the request for label: the same
// conversation always gets the same ids, and no part of it is read again
// to make them (a hash of the whole body on every call made long runs
// quadratic).
func (m modelCall) digest(label string) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00", label, m.size)
	h.Write(m.turns[:])
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// errFault is returned by prepare when the lesson answers with an HTTP
// error instead of a model reply.
type errFault struct {
	status int
	fault  fault
}

func (e errFault) Error() string { return fmt.Sprintf("simulated HTTP %d", e.status) }

// prepare waits out the simulated latency (or the part of it before the
// first byte), then decides: a fault the lesson demonstrates, or the tutor's
// reply. It returns ctx's error when the caller gave up while waiting.
func (s *Server) prepare(ctx context.Context, m modelCall, wait time.Duration) (reply, error) {
	if err := sleep(ctx, wait); err != nil {
		return reply{}, err
	}
	if l, ok := lessonForRequest(m.conv.request); ok {
		switch l.fault {
		case faultOutage:
			return reply{}, errFault{http.StatusServiceUnavailable, faultOutage}
		case faultUnknownModel:
			return reply{}, errFault{http.StatusNotFound, faultUnknownModel}
		case faultRateLimitFirst:
			// Only the lesson's first model call is limited, and only on
			// every other attempt of the same request: the loop's retry
			// succeeds, and running the lesson again shows the 429 again.
			if len(m.conv.steps) == 0 && s.attempts.next(m.digest("glassbox offline attempt"))%2 == 0 {
				return reply{}, errFault{http.StatusTooManyRequests, faultRateLimitFirst}
			}
		}
	}
	conv := m.conv
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

// apiErrors writes a lesson's faults in one API's own error shape.
type apiErrors struct {
	notFound func() // the model is unknown
	// fault writes status with msg, overloaded (503) or rate limited (429).
	fault func(status int, overloaded bool)
}

// wrote answers err from prepare: a lesson's fault is written (with
// Retry-After: 1 where the client may come back); a caller that gave up
// gets nothing. It reports whether the call ends here.
func (a apiErrors) wrote(w http.ResponseWriter, err error) bool {
	var f errFault
	switch {
	case errors.As(err, &f) && f.fault == faultUnknownModel:
		a.notFound()
	case errors.As(err, &f):
		w.Header().Set("Retry-After", "1")
		a.fault(f.status, f.fault == faultOutage)
	}
	return err != nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
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

// chunkDelay spreads the second half of the latency over n chunks.
func (s *Server) chunkDelay(n int) time.Duration {
	if n <= 1 || s.cfg.Latency <= 0 {
		return 0
	}
	return s.cfg.Latency / 2 / time.Duration(n-1)
}

// firstByteDelay is the part of the latency before the response headers:
// all of it for a single answer, half of it for a stream.
func (s *Server) firstByteDelay(stream bool) time.Duration {
	if stream {
		return s.cfg.Latency / 2
	}
	return s.cfg.Latency
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

// writeJSON writes v as a JSON body with its Content-Length.
func writeJSON(w http.ResponseWriter, status int, v any) {
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

// isCanceled reports whether err is a context cancellation or deadline.
func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// tokens estimates a token count the way the simulation reports usage:
// about four bytes per token, at least one.
func tokens(n int) int {
	return max(1, n/4)
}
