// Package payload renders the Raw payload pane: the exact bytes of one LLM
// call's HTTP exchange, pretty-printed and coloured, with timings, headers,
// redactions, streamed chunks and the JSON-mode parse step.
//
// Rendering a 1 MiB body is expensive, redrawing it must not be: a Renderer
// keeps its recent results, so while nothing changes a frame costs a lookup.
package payload

import (
	"reflect"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/ui/lang"
	"github.com/glassbox-dev/glassbox/ui/theme"
)

// View selects what the pane shows.
type View struct {
	Exchanges  []providers.Exchange // the call's exchanges; retries make several
	Index      int                  // which exchange to show (clamped to the range)
	Response   bool                 // false: the request; true: the response
	Headers    bool                 // show the HTTP headers
	Parse      *providers.ParseStep // the JSON-mode parse step (Llama), shown with the response
	Divergence string               // a replay divergence, shown as a warning at the top
	// Live marks an exchange still in flight: its response is whatever has
	// arrived so far, listed chunk by chunk as it comes in.
	Live bool
	// Lang is the language of the pane's own words (titles, notes); the
	// payload itself is shown as it was sent.
	Lang lang.Lang
}

// Renderer turns a View into lines and remembers its recent results, so the
// pane costs almost nothing to redraw while nothing changes. It is not safe
// for concurrent use; the UI owns one per pane.
type Renderer struct {
	documents []cachedDocument // most recent first
	pages     []cachedPage     // most recent first
	// The brushes of the theme last painted with, and their fingerprint:
	// finding a brush's codes is a lipgloss Render, thirteen of them for
	// every lookup otherwise.
	paintedBy paintKey
	brushes   *brushes
	paint     string
}

// paintKey is what a theme's brushes depend on: the theme, the colour
// profile and, for a theme with colours, the terminal's background.
type paintKey struct {
	theme   string
	profile termenv.Profile
	dark    bool
}

// brushesFor is th's brushes and their fingerprint, found once per theme,
// profile and background.
func (r *Renderer) brushesFor(th theme.Theme) (*brushes, string) {
	k := paintKey{theme: th.Name, profile: lipgloss.ColorProfile()}
	if !th.NoColor {
		k.dark = lipgloss.HasDarkBackground() // asked only where a colour would ask it too
	}
	if r.brushes == nil || k != r.paintedBy {
		r.paintedBy, r.brushes = k, newBrushes(th)
		r.paint = r.brushes.fingerprint()
	}
	return r.brushes, r.paint
}

// How many results a Renderer keeps: enough to flip between request and
// response, headers on and off, without recomputing. Late in a long session
// one request is megabytes and its rendering ten times that, so of a result
// over keepBytes of source text only the wrapped page is kept, one at a
// time (see trim and dropLarge).
const (
	keepDocuments = 4
	keepPages     = 4
	keepBytes     = 2 << 20
)

// contentKey identifies what a document shows, whatever the width or theme.
// Bodies are identified by their backing array and length (the captured
// bytes never change once recorded), so building a key costs no hashing.
type contentKey struct {
	count      int // len(View.Exchanges)
	index      int
	response   bool
	headers    bool
	parse      *providers.ParseStep
	divergence string
	live       bool
	lang       lang.Lang

	method, url, err, exDivergence string
	status                         int
	ttfb, total                    int64
	requestBody, responseBody      byteRef
	chunks                         *providers.Chunk
	nChunks                        int
	requestHeaders                 uintptr
	responseHeaders                uintptr
	redacted                       int
}

// byteRef identifies a byte slice: its first byte's address and its length.
type byteRef struct {
	first *byte
	n     int
}

func identify(b []byte) byteRef {
	if len(b) == 0 {
		return byteRef{}
	}
	return byteRef{&b[0], len(b)}
}

// mapID identifies a map by its address (0 for nil).
func mapID(m map[string][]string) uintptr {
	if m == nil {
		return 0
	}
	return reflect.ValueOf(m).Pointer()
}

// pageKey identifies a wrapped, painted result.
type pageKey struct {
	content contentKey
	width   int
	paint   string // the brushes' fingerprint
}

type cachedDocument struct {
	key contentKey
	doc *document
}

type cachedPage struct {
	key   pageKey
	lines []string
}

// NewRenderer returns an empty Renderer.
func NewRenderer() *Renderer { return &Renderer{} }

// Lines returns every line of the pane's content at width cells (the caller
// scrolls). No line is wider than width; width ≤ 0 gives no lines. The
// returned slice is shared with the cache: do not modify it.
func (r *Renderer) Lines(th theme.Theme, v View, width int) []string {
	if width <= 0 {
		return nil
	}
	br, paint := r.brushesFor(th)
	content := keyOf(v)
	key := pageKey{content: content, width: width, paint: paint}
	for i, p := range r.pages {
		if p.key == key {
			moveToFront(r.pages, i)
			return p.lines
		}
	}
	if content.size() > keepBytes {
		r.pages = dropLarge(r.pages, pageSize)
	}
	lines := wrap(r.document(v, content), width, br)
	r.pages = remember(r.pages, cachedPage{key, lines}, keepPages)
	r.pages = trim(r.pages, pageSize)
	return lines
}

// document returns the cached document for content, building it if needed.
func (r *Renderer) document(v View, content contentKey) *document {
	for i, d := range r.documents {
		if d.key == content {
			moveToFront(r.documents, i)
			return d.doc
		}
	}
	doc := build(v)
	if content.size() > keepBytes {
		// A large document is wrapped once and its page kept; holding the
		// document too would double what a late request costs, for the sake
		// of a resize, which builds it again.
		return doc
	}
	r.documents = remember(r.documents, cachedDocument{content, doc}, keepDocuments)
	r.documents = trim(r.documents, documentSize)
	return doc
}

func documentSize(d cachedDocument) int { return d.key.size() }
func pageSize(p cachedPage) int         { return p.key.content.size() }

// keyOf builds the content key of v.
func keyOf(v View) contentKey {
	k := contentKey{
		count:      len(v.Exchanges),
		index:      clampIndex(v),
		response:   v.Response,
		headers:    v.Headers,
		parse:      v.Parse,
		divergence: v.Divergence,
		live:       v.Live,
		lang:       v.Lang,
	}
	if k.count == 0 {
		return k
	}
	ex := &v.Exchanges[k.index]
	k.method, k.url, k.err, k.exDivergence = ex.Method, ex.URL, ex.Err, ex.Divergence
	k.status = ex.Status
	k.ttfb, k.total = int64(ex.TTFB), int64(ex.Total)
	k.requestBody, k.responseBody = identify(ex.RequestBody), identify(ex.ResponseBody)
	if len(ex.Chunks) > 0 {
		k.chunks = &ex.Chunks[0]
	}
	k.nChunks = len(ex.Chunks)
	k.requestHeaders, k.responseHeaders = mapID(ex.RequestHeaders), mapID(ex.ResponseHeaders)
	k.redacted = len(ex.Redacted)
	return k
}

// clampIndex keeps v.Index within the exchanges.
func clampIndex(v View) int {
	return max(0, min(v.Index, len(v.Exchanges)-1))
}

// remember puts e at the front of list, keeping at most n entries.
func remember[T any](list []T, e T, n int) []T {
	if len(list) < n {
		list = append(list, e)
	}
	copy(list[1:], list[:len(list)-1])
	list[0] = e
	return list
}

// trim bounds what the cache holds: at most one large entry (over
// keepBytes of source text: late in a long session, one request), and
// small ones while they add up to keepBytes. The most recent entry always
// stays.
func trim[T any](list []T, size func(T) int) []T {
	out := list[:0]
	large, total := false, 0
	for i, e := range list {
		n := size(e)
		keep := i == 0
		if n > keepBytes {
			keep = keep || !large
			large = true
		} else {
			total += n
			keep = keep || total <= keepBytes
		}
		if keep {
			out = append(out, e)
		}
	}
	clear(list[len(out):])
	return out
}

// dropLarge empties the cache's large entries before a new large result is
// built, so two never live at once.
func dropLarge[T any](list []T, size func(T) int) []T {
	out := list[:0]
	for _, e := range list {
		if size(e) <= keepBytes {
			out = append(out, e)
		}
	}
	clear(list[len(out):])
	return out
}

// size is about how much source text a document shows: the body on
// screen (the request's, or the response's with its chunks).
func (k contentKey) size() int {
	if k.response {
		return k.responseBody.n + k.nChunks*64
	}
	return k.requestBody.n
}

// moveToFront makes list[i] the most recent entry.
func moveToFront[T any](list []T, i int) {
	e := list[i]
	copy(list[1:i+1], list[:i])
	list[0] = e
}
