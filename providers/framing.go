package providers

import (
	"bytes"
	"net/http"
	"strings"
	"time"
)

// framing says what one Chunk of a response body is.
type framing int

const (
	// byRead keeps a body read by read: one JSON document (a unary reply,
	// an error) has no records of its own.
	byRead framing = iota
	// byLine cuts NDJSON (Ollama's stream) into its lines.
	byLine
	// byEvent cuts server-sent events (Gemini's :streamGenerateContent
	// ?alt=sse, OpenAI-compatible streams) into events: the lines up to and
	// including the blank line that ends each one.
	byEvent
)

// framingOf reads the response's Content-Type.
func framingOf(h http.Header) framing {
	ct := strings.ToLower(h.Get("Content-Type"))
	switch {
	case strings.Contains(ct, "text/event-stream"):
		return byEvent
	case strings.Contains(ct, "ndjson"), strings.Contains(ct, "jsonl"):
		return byLine
	}
	return byRead
}

// recordFramer puts the reads of a streamed body back together into its
// records, so that a chunk is one NDJSON line or one SSE event whatever the
// network made of it: an event split across two reads is one chunk (that
// says it took two reads), and two events in one read are two chunks.
type recordFramer struct {
	kind  framing
	open  []byte        // the bytes of the record not yet complete
	reads int           // how many reads carried part of open
	start time.Duration // when the first of them arrived
}

// feed takes the next bytes (already masked) that arrived at offset and
// returns the chunks they complete.
func (f *recordFramer) feed(p []byte, offset time.Duration) []Chunk {
	if len(p) == 0 {
		return nil
	}
	if f.kind == byRead {
		return []Chunk{{Offset: offset, Data: p}}
	}
	if len(f.open) == 0 {
		f.start = offset
	}
	f.reads++
	f.open = append(f.open, p...)
	var out []Chunk
	at := 0 // where the next record starts in open
	for {
		n := recordEnd(f.kind, f.open[at:])
		if n < 0 {
			break
		}
		out = append(out, f.chunk(f.open[at:at+n], offset))
		at += n
		// The rest of this read starts the next record.
		f.reads, f.start = 1, offset
	}
	// One move per read, however many records it held.
	f.open = append(f.open[:0], f.open[at:]...)
	if len(f.open) == 0 {
		f.reads = 0
	}
	return out
}

// flush returns what is left at the end of the body: a last record with no
// end (the stream stopped in it).
func (f *recordFramer) flush(offset time.Duration) []Chunk {
	if len(f.open) == 0 {
		return nil
	}
	c := f.chunk(f.open, offset)
	f.open, f.reads = f.open[:0], 0
	return []Chunk{c}
}

// chunk copies one record into a chunk, with the reads that carried it.
func (f *recordFramer) chunk(record []byte, offset time.Duration) Chunk {
	c := Chunk{Offset: offset, Data: bytes.Clone(record)}
	if f.reads > 1 {
		c.Reads, c.Start = f.reads, f.start
	}
	return c
}

// recordEnd is the length of the first complete record in b, or -1. An
// NDJSON record ends with its line; an SSE event with its first empty line
// ("\n\n", "\r\n\r\n"; a lone "\r" line end is not used by any of the
// services and is not recognised).
func recordEnd(kind framing, b []byte) int {
	if kind == byLine {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return i + 1
		}
		return -1
	}
	lineStart := 0
	for lineStart < len(b) {
		i := bytes.IndexByte(b[lineStart:], '\n')
		if i < 0 {
			return -1
		}
		line := bytes.TrimSuffix(b[lineStart:lineStart+i], []byte("\r"))
		end := lineStart + i + 1
		if len(line) == 0 {
			// The event's end; a blank line before any field (a
			// keep-alive) is a record of its own.
			return end
		}
		lineStart = end
	}
	return -1
}

// StreamRecords cuts a whole streamed body into its records as the capture
// cuts one while it arrives: NDJSON lines, or (sse) server-sent events.
// partial is the end of the body when it stopped inside a record (the
// connection was cut, or the server never ended it); nil otherwise.
func StreamRecords(body []byte, sse bool) (records [][]byte, partial []byte) {
	kind := byLine
	if sse {
		kind = byEvent
	}
	for len(body) > 0 {
		n := recordEnd(kind, body)
		if n < 0 {
			return records, body
		}
		records = append(records, body[:n])
		body = body[n:]
	}
	return records, nil
}

// IsEventStream says the Content-Type is server-sent events; IsNDJSON that
// it is newline-delimited JSON.
func IsEventStream(h http.Header) bool { return framingOf(h) == byEvent }

// IsNDJSON says the Content-Type is newline-delimited JSON (Ollama's stream).
func IsNDJSON(h http.Header) bool { return framingOf(h) == byLine }
