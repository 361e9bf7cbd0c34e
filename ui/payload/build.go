package payload

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/providers"
)

// build writes the document for v: an optional divergence warning, the
// summary line, the headers if asked, then the request or the response
// (with the JSON-mode parse step).
func build(v View) *document {
	var d document
	if len(v.Exchanges) == 0 {
		d.line(inkMuted, "No HTTP exchange for this step.")
		return &d
	}
	i := clampIndex(v)
	ex := &v.Exchanges[i]

	divergence := v.Divergence
	if divergence == "" {
		divergence = ex.Divergence
	}
	if divergence != "" {
		d.newLine(0, 2)
		d.put(inkWarning, "⚠ replay divergence: "+divergence)
	}
	d.summary(ex, i, len(v.Exchanges), v.Live)

	if v.Headers {
		d.headers(ex, v.Response)
	}
	if v.Response {
		d.response(ex, v.Live)
		if v.Parse != nil {
			d.parse(v.Parse)
		}
	} else {
		d.section(fmt.Sprintf("request body · %s", size(len(ex.RequestBody))))
		d.body(ex.RequestBody)
	}
	return &d
}

// summary is the first line: what was sent where, how it went, how long it
// took: `POST http://… · 200 OK · TTFB 12ms · total 40ms · exchange 1/2`.
func (d *document) summary(ex *providers.Exchange, i, n int, live bool) {
	d.newLine(0, 2)
	method := ex.Method
	if method == "" {
		method = "?"
	}
	d.put(inkBold, method)
	d.put(inkPlain, " "+ex.URL)
	dot := func() { d.put(inkMuted, " · ") }
	dot()
	switch {
	case ex.Err != "":
		d.put(inkError, "✗ transport error")
	case ex.Status == 0 && live && len(ex.Chunks) > 0:
		d.put(inkWarning, fmt.Sprintf("receiving… %d chunk%s so far", len(ex.Chunks), map[bool]string{true: "", false: "s"}[len(ex.Chunks) == 1]))
	case ex.Status == 0 && live:
		d.put(inkWarning, "on the wire… waiting for the first byte")
	case ex.Status == 0:
		d.put(inkMuted, "no response yet")
	default:
		k := inkSuccess
		if ex.Status >= 400 {
			k = inkError
		} else if ex.Status >= 300 {
			k = inkWarning
		}
		d.put(k, strings.TrimSpace(strconv.Itoa(ex.Status)+" "+http.StatusText(ex.Status)))
	}
	if ex.TTFB > 0 {
		dot()
		d.put(inkMuted, "TTFB "+duration(ex.TTFB))
	}
	if ex.Total > 0 {
		dot()
		d.put(inkMuted, "total "+duration(ex.Total))
	}
	dot()
	d.put(inkMuted, fmt.Sprintf("exchange %d/%d", i+1, n))
}

// section starts a part of the pane with a title rule.
func (d *document) section(title string) {
	d.blank()
	d.line(inkTitle, "── "+title+" ──")
}

// headers lists the request's or the response's headers, sorted by name,
// then what the capture redacted.
func (d *document) headers(ex *providers.Exchange, response bool) {
	h, which := ex.RequestHeaders, "request headers"
	if response {
		h, which = ex.ResponseHeaders, "response headers"
	}
	d.section(which)
	if len(h) == 0 {
		d.line(inkMuted, "(none recorded)")
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
	for _, name := range names {
		for _, value := range h[name] {
			d.newLine(0, 4)
			d.put(inkKey, name)
			d.put(inkPunct, ": ")
			d.put(inkPlain, value)
		}
	}
	// The capture names what it masked on the response side with the word
	// "response"; everything else was masked in the request.
	var masked []string
	for _, r := range ex.Redacted {
		if strings.Contains(r, "response") == response {
			masked = append(masked, r)
		}
	}
	if len(masked) > 0 {
		d.newLine(0, 4)
		d.put(inkMuted, "redacted: ")
		d.put(inkRedacted, strings.Join(masked, ", "))
	}
}

// response shows the response: the transport error, the streamed chunks
// with their arrival times, or the body.
func (d *document) response(ex *providers.Exchange, live bool) {
	if ex.Err != "" {
		d.section("response")
		d.newLine(0, 2)
		d.put(inkError, "✗ transport error: "+ex.Err)
		if len(ex.ResponseBody) == 0 && len(ex.Chunks) == 0 {
			d.line(inkMuted, "No response arrived; the request (r) shows what was sent.")
			return
		}
	}
	if live && len(ex.Chunks) == 0 {
		d.section("response")
		d.line(inkMuted, "Nothing has arrived yet; chunks appear here as they come in.")
		return
	}
	if len(ex.Chunks) > 0 && (live || streamed(ex)) {
		total := 0
		for _, c := range ex.Chunks {
			total += len(c.Data)
		}
		d.section(fmt.Sprintf("response body · %s in %d chunks, as they arrived", size(total), len(ex.Chunks)))
		d.chunks(ex.Chunks)
		return
	}
	title := fmt.Sprintf("response body · %s", size(len(ex.ResponseBody)))
	if n := len(ex.Chunks); n > 1 {
		title += fmt.Sprintf(" · read in %d pieces, the last at +%s", n, duration(ex.Chunks[n-1].Offset))
	}
	d.section(title)
	d.body(ex.ResponseBody)
}

// streamed reports whether the response is a stream of records (Ollama's
// NDJSON, Gemini's server-sent events), which reads best chunk by chunk
// with arrival times; one JSON document reads best pretty-printed whole.
func streamed(ex *providers.Exchange) bool {
	for k, vs := range ex.ResponseHeaders {
		if !strings.EqualFold(k, "Content-Type") {
			continue
		}
		for _, v := range vs {
			if strings.Contains(v, "ndjson") || strings.Contains(v, "event-stream") {
				return true
			}
		}
	}
	return false
}

// chunkPrefix is the width of `+  12ms  `, the offset column of a chunk.
const chunkPrefix = 10

// chunks lists a streamed body read by read: the offset since the request
// was sent, then each line of the read (an NDJSON object, an SSE field)
// compact on one line, wrapping under the data column.
func (d *document) chunks(chunks []providers.Chunk) {
	for _, c := range chunks {
		offset := fmt.Sprintf("+%7s  ", duration(c.Offset))
		pieces := strings.Split(strings.TrimSuffix(string(c.Data), "\n"), "\n")
		for j, piece := range pieces {
			d.newLine(0, chunkPrefix)
			if j == 0 {
				d.put(inkMuted, offset)
			} else {
				d.put(inkMuted, spaces(chunkPrefix))
			}
			piece = strings.TrimSuffix(piece, "\r")
			if piece == "" {
				d.put(inkMuted, "(blank line)")
				continue
			}
			d.record(piece)
		}
	}
}

// record writes one line of a streamed body: a JSON object compactly, an
// SSE `data:` line as its field name then its JSON, anything else as text.
func (d *document) record(s string) {
	if data, ok := strings.CutPrefix(s, "data:"); ok {
		d.put(inkMuted, "data: ")
		s = strings.TrimPrefix(data, " ")
	}
	if isJSON([]byte(s)) {
		d.writeJSON(s, false, 0)
		return
	}
	d.put(inkPlain, s)
}

// body writes a whole body: one JSON document pretty-printed; NDJSON or
// SSE as one record per line; anything else as text.
func (d *document) body(b []byte) {
	switch {
	case len(b) == 0:
		d.line(inkMuted, "(empty body)")
	case isJSON(b):
		d.writeJSON(string(b), true, 0)
	case isRecords(b):
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l = strings.TrimSuffix(l, "\r"); l == "" {
				continue
			}
			d.newLine(0, 2)
			d.record(l)
		}
	default:
		if t := strings.TrimSpace(string(b[:min(len(b), 64)])); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			d.line(inkWarning, "⚠ not valid JSON; shown as sent")
		}
		d.text(inkPlain, string(b), 0)
	}
}

// isRecords reports whether b is a stream of JSON records: NDJSON (one
// object per line) or server-sent events whose data lines hold JSON.
func isRecords(b []byte) bool {
	records := 0
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case l == "":
		case strings.HasPrefix(l, "data:"):
			data := strings.TrimPrefix(strings.TrimPrefix(l, "data:"), " ")
			if !isJSON([]byte(data)) && data != "[DONE]" {
				return false
			}
			records++
		case strings.HasPrefix(l, "event:"), strings.HasPrefix(l, "id:"), strings.HasPrefix(l, ":"):
		default:
			if !isJSON([]byte(l)) {
				return false
			}
			records++
		}
	}
	return records > 0
}

// parse shows how JSON-mode text became a tool call, in three steps.
func (d *document) parse(p *providers.ParseStep) {
	d.section("JSON-mode parse")
	d.line(inkBold, "1 · the text the model wrote")
	if p.Raw == "" {
		d.newLine(4, 4)
		d.put(inkMuted, "(empty)")
	} else {
		d.text(inkPlain, p.Raw, 4)
	}

	d.line(inkBold, "2 · the JSON extracted from it")
	switch {
	case p.Extracted == "":
		d.newLine(4, 4)
		d.put(inkMuted, "(no JSON object found)")
	case isJSON([]byte(p.Extracted)):
		d.writeJSON(p.Extracted, true, 4)
	default:
		d.text(inkPlain, p.Extracted, 4)
	}

	d.line(inkBold, "3 · what came of it")
	d.newLine(4, 6)
	if p.Error != "" {
		d.put(inkError, "✗ "+p.Error)
		return
	}
	d.put(inkSuccess, "✓ "+p.Outcome)
}

// duration formats a time for the pane: 850µs, 12ms, 1.25s.
func duration(t time.Duration) string {
	switch {
	case t < time.Millisecond:
		return fmt.Sprintf("%dµs", t.Microseconds())
	case t < 10*time.Second:
		return fmt.Sprintf("%dms", t.Milliseconds())
	default:
		return fmt.Sprintf("%.2fs", t.Seconds())
	}
}

// size formats a byte count: 512 B, 12.3 KiB, 1.0 MiB.
func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
	}
}
