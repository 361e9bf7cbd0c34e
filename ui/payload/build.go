package payload

import (
	"bytes"
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
	d := document{lang: v.Lang}
	l := v.Lang
	if len(v.Exchanges) == 0 {
		d.line(inkMuted, l.T("No HTTP exchange for this step."))
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
		d.put(inkWarning, "⚠ "+l.F("replay divergence: %s", divergence))
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
		d.section(l.F("request body · %s", size(len(ex.RequestBody))))
		d.body(ex.RequestBody)
	}
	return &d
}

// summary is the first line: what was sent where, how it went, how long it
// took: `POST http://… · 200 OK · TTFB 12ms · total 40ms · exchange 1/2`.
func (d *document) summary(ex *providers.Exchange, i, n int, live bool) {
	l := d.lang
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
		d.put(inkError, "✗ "+l.T("transport error"))
	case ex.Status == 0 && live && len(ex.Chunks) > 0:
		d.put(inkWarning, l.F("receiving… %d chunk%s so far", len(ex.Chunks), map[bool]string{true: "", false: "s"}[len(ex.Chunks) == 1]))
	case ex.Status == 0 && live:
		d.put(inkWarning, l.T("on the wire… waiting for the first byte"))
	case ex.Status == 0:
		d.put(inkMuted, l.T("no response yet"))
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
		d.put(inkMuted, l.F("total %s", duration(ex.Total)))
	}
	dot()
	d.put(inkMuted, l.F("exchange %d/%d", i+1, n))
}

// section starts a part of the pane with a title rule.
func (d *document) section(title string) {
	d.blank()
	d.line(inkTitle, "── "+title+" ──")
}

// headers lists the request's or the response's headers, sorted by name,
// then what the capture redacted.
func (d *document) headers(ex *providers.Exchange, response bool) {
	h, which := ex.RequestHeaders, d.lang.T("request headers")
	if response {
		h, which = ex.ResponseHeaders, d.lang.T("response headers")
	}
	if !response && len(ex.WireHeaders) > 0 {
		d.wireHeaders(ex)
	} else {
		d.section(which)
		d.headerMap(h)
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
		d.put(inkMuted, d.lang.T("redacted: "))
		d.put(inkRedacted, strings.Join(masked, ", "))
	}
}

// wireHeaders lists the request's header fields in the order the transport
// wrote them, marking the ones it added to what the SDK set.
func (d *document) wireHeaders(ex *providers.Exchange) {
	d.section(d.lang.T("request headers · as written on the wire"))
	added := 0
	for _, h := range ex.WireHeaders {
		d.newLine(0, 4)
		d.put(inkKey, h.Name)
		d.put(inkPunct, ": ")
		d.put(inkPlain, h.Value)
		if h.Added {
			d.put(inkMuted, "  + transport")
			added++
		}
	}
	if added > 0 {
		d.newLine(0, 4)
		d.put(inkMuted, d.lang.F("+ transport: %d field%s Go's HTTP transport added to the ones the SDK set", added, map[bool]string{true: "", false: "s"}[added == 1]))
	}
}

// headerMap lists headers sorted by name.
func (d *document) headerMap(h map[string][]string) {
	if len(h) == 0 {
		d.line(inkMuted, d.lang.T("(none recorded)"))
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
}

// response shows the response: the transport error, the streamed chunks
// with their arrival times, or the body.
func (d *document) response(ex *providers.Exchange, live bool) {
	l := d.lang
	if ex.Err != "" {
		d.section(l.T("response"))
		d.newLine(0, 2)
		d.put(inkError, "✗ "+l.F("transport error: %s", ex.Err))
		if len(ex.ResponseBody) == 0 && len(ex.Chunks) == 0 {
			d.line(inkMuted, l.T("No response arrived; the request (r) shows what was sent."))
			return
		}
	}
	if live && len(ex.Chunks) == 0 {
		d.section(l.T("response"))
		d.line(inkMuted, l.T("Nothing has arrived yet; chunks appear here as they come in."))
		return
	}
	if len(ex.Chunks) > 0 && (live || streamed(ex)) {
		d.streamedResponse(ex)
		return
	}
	title := l.F("response body · %s", size(len(ex.ResponseBody)))
	if n := len(ex.Chunks); n > 1 {
		title += " · " + l.F("read in %d pieces, the last at +%s", n, duration(ex.Chunks[n-1].Offset))
	}
	d.section(title)
	d.body(ex.ResponseBody)
}

// streamedResponse shows a streamed response record by record, with the
// arrival time of each.
func (d *document) streamedResponse(ex *providers.Exchange) {
	l := d.lang
	total := 0
	for _, c := range ex.Chunks {
		total += len(c.Data)
	}
	lines := streamLines(ex.Chunks)
	// A chunk is one record of the stream (providers.Chunk): an SSE
	// event, or an NDJSON line.
	n, sse := len(lines), eventStream(ex)
	if sse {
		// Each event ends with a blank line; the list leaves those out.
		n = len(ex.Chunks)
	}
	var count string
	switch {
	case sse && n == 1:
		count = l.T("1 event, as it arrived")
	case sse:
		count = l.F("%d events, as they arrived", n)
	case n == 1:
		count = l.T("1 line, as it arrived")
	default:
		count = l.F("%d lines, as they arrived", n)
	}
	d.section(l.F("response body · %s · %s", size(total), count))
	d.chunks(lines, sse)
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

// eventStream reports whether the response is server-sent events.
func eventStream(ex *providers.Exchange) bool {
	return strings.Contains(http.Header(ex.ResponseHeaders).Get("Content-Type"), "event-stream")
}

// chunkPrefix is the width of `+  12ms  `, the offset column of a chunk.
const chunkPrefix = 10

// streamLine is one line of a streamed body (an NDJSON object, an SSE
// field) put back together from the reads that carried it.
type streamLine struct {
	text string
	// offset is when the read that ended the line arrived; labelled says
	// the line is the first to end in that read (later ones in the same
	// read show no offset of their own).
	offset   time.Duration
	labelled bool
	// pieces lists, for a line that a read boundary split, how many bytes
	// each read carried and when.
	pieces []providers.Chunk
	// reads, when more than one, is how many reads the capture saw carry
	// the line's record (a chunk is one record, see providers.Chunk), the
	// first of them at start.
	reads int
	start time.Duration
	// open is a last line with no line end: the stream stopped there, or
	// (live) the rest has not arrived yet.
	open bool
}

// streamLines splits the recorded reads into the body's lines. The capture
// records reads as they happened: a read may hold two lines, or part of
// one, so the lines are what the pane lists, and the reads show as the
// offsets and as the pieces of a split line.
func streamLines(chunks []providers.Chunk) []streamLine {
	var lines []streamLine
	var cur []byte
	var pieces []providers.Chunk
	for _, c := range chunks {
		labelled := true
		data := c.Data
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				cur = append(cur, data...)
				pieces = append(pieces, providers.Chunk{Offset: c.Offset, Data: data})
				break
			}
			cur = append(cur, data[:i]...)
			l := streamLine{text: strings.TrimSuffix(string(cur), "\r"), offset: c.Offset, labelled: labelled}
			if labelled && c.Reads > 1 {
				l.reads, l.start = c.Reads, c.Start
			}
			if len(pieces) > 0 {
				l.pieces = append(pieces, providers.Chunk{Offset: c.Offset, Data: data[:i+1]})
			}
			lines = append(lines, l)
			cur, pieces, labelled = cur[:0], nil, false
			data = data[i+1:]
		}
	}
	if len(pieces) > 0 {
		last := pieces[len(pieces)-1]
		l := streamLine{text: string(cur), offset: last.Offset, labelled: true, open: true}
		if len(pieces) > 1 {
			l.pieces = pieces
		}
		lines = append(lines, l)
	}
	return lines
}

// chunks lists a streamed body line by line: the offset of the read that
// completed the line (blank for a further line of the same read), then the
// line compact, wrapping under the data column. A line that reached the
// client in more than one read says so underneath, read by read.
func (d *document) chunks(lines []streamLine, sse bool) {
	for _, l := range lines {
		if sse && l.text == "" && !l.labelled && !l.open && l.reads < 2 && len(l.pieces) < 2 {
			continue // the blank line that ends an event
		}
		d.newLine(0, chunkPrefix)
		if l.labelled {
			d.put(inkMuted, fmt.Sprintf("+%7s  ", duration(l.offset)))
		} else {
			d.put(inkMuted, spaces(chunkPrefix))
		}
		if l.text == "" {
			d.put(inkMuted, d.lang.T("(blank line)"))
		} else {
			d.record(l.text)
		}
		if len(l.pieces) > 1 {
			var parts []string
			for _, p := range l.pieces {
				parts = append(parts, d.lang.F("%s at +%s", size(len(p.Data)), duration(p.Offset)))
			}
			d.newLine(chunkPrefix, chunkPrefix+2)
			d.put(inkWarning, "↳ "+d.lang.F("split across %d reads: %s", len(l.pieces), strings.Join(parts, ", ")))
		}
		if l.reads > 1 {
			d.newLine(chunkPrefix, chunkPrefix+2)
			d.put(inkWarning, "↳ "+d.lang.F("arrived in %d reads, from +%s to +%s", l.reads, duration(l.start), duration(l.offset)))
		}
		if l.open {
			d.newLine(chunkPrefix, chunkPrefix+2)
			d.put(inkWarning, "↳ "+d.lang.T("no line end: the stream stopped here, or the rest has not arrived yet"))
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
		d.line(inkMuted, d.lang.T("(empty body)"))
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
			d.line(inkWarning, "⚠ "+d.lang.T("not valid JSON; shown as sent"))
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
	l := d.lang
	d.section(l.T("JSON-mode parse"))
	d.line(inkBold, l.T("1 · the text the model wrote"))
	if p.Raw == "" {
		d.newLine(4, 4)
		d.put(inkMuted, l.T("(empty)"))
	} else {
		d.text(inkPlain, p.Raw, 4)
	}

	d.line(inkBold, l.T("2 · the JSON extracted from it"))
	switch {
	case p.Extracted == "":
		d.newLine(4, 4)
		d.put(inkMuted, l.T("(no JSON object found)"))
	case isJSON([]byte(p.Extracted)):
		d.writeJSON(p.Extracted, true, 4)
	default:
		d.text(inkPlain, p.Extracted, 4)
	}

	d.line(inkBold, l.T("3 · what came of it"))
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
