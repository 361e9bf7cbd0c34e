package providers

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The framer cuts a stream into its records whatever the reads were.
func TestRecordFramer(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	type read struct {
		data string
		at   int
	}
	tests := []struct {
		name  string
		kind  framing
		reads []read
		want  []Chunk // Data as string in Data
	}{
		{"SSE: two events in one read", byEvent, []read{{"data: a\r\n\r\ndata: b\r\n\r\n", 5}},
			[]Chunk{{Offset: ms(5), Data: []byte("data: a\r\n\r\n")}, {Offset: ms(5), Data: []byte("data: b\r\n\r\n")}}},
		{"SSE: one event over three reads, LF only", byEvent, []read{{"data: {\"a\"", 1}, {":1}\n", 2}, {"\n", 3}},
			[]Chunk{{Offset: ms(3), Data: []byte("data: {\"a\":1}\n\n"), Reads: 3, Start: ms(1)}}},
		{"SSE: the rest of a read starts the next event", byEvent, []read{{"data: a\n\ndata: b", 1}, {"\n\n", 4}},
			[]Chunk{{Offset: ms(1), Data: []byte("data: a\n\n")}, {Offset: ms(4), Data: []byte("data: b\n\n"), Reads: 2, Start: ms(1)}}},
		{"SSE: a keep-alive blank line is a record", byEvent, []read{{"\n", 1}},
			[]Chunk{{Offset: ms(1), Data: []byte("\n")}}},
		{"NDJSON: two lines in one read, one split", byLine, []read{{"{\"a\":1}\n{\"b\"", 1}, {":2}\n", 2}},
			[]Chunk{{Offset: ms(1), Data: []byte("{\"a\":1}\n")}, {Offset: ms(2), Data: []byte("{\"b\":2}\n"), Reads: 2, Start: ms(1)}}},
		{"a body: read by read", byRead, []read{{"{\"a\"", 1}, {":1}", 2}},
			[]Chunk{{Offset: ms(1), Data: []byte("{\"a\"")}, {Offset: ms(2), Data: []byte(":1}")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := recordFramer{kind: tt.kind}
			var got []Chunk
			for _, r := range tt.reads {
				got = append(got, f.feed([]byte(r.data), ms(r.at))...)
			}
			got = append(got, f.flush(ms(99))...)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d chunks %+v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if string(g.Data) != string(w.Data) || g.Offset != w.Offset || g.Reads != w.Reads || g.Start != w.Start {
					t.Errorf("chunk %d = %q at %v (reads %d from %v), want %q at %v (reads %d from %v)",
						i, g.Data, g.Offset, g.Reads, g.Start, w.Data, w.Offset, w.Reads, w.Start)
				}
			}
		})
	}
	t.Run("a stream cut in a record leaves it open", func(t *testing.T) {
		f := recordFramer{kind: byEvent}
		if got := f.feed([]byte("data: {\"cand"), ms(1)); len(got) != 0 {
			t.Fatalf("an open event was emitted: %+v", got)
		}
		if got := f.flush(ms(7)); len(got) != 1 || string(got[0].Data) != "data: {\"cand" || got[0].Offset != ms(7) {
			t.Errorf("flush = %+v, want the open event", got)
		}
	})
	for ct, want := range map[string]framing{"text/event-stream": byEvent, "text/event-stream; charset=utf-8": byEvent,
		"application/x-ndjson": byLine, "application/json; charset=utf-8": byRead, "": byRead} {
		if got := framingOf(http.Header{"Content-Type": {ct}}); got != want {
			t.Errorf("framingOf(%q) = %d, want %d", ct, got, want)
		}
	}
}

// A recorded stall or call timeout replays as the same failure: a
// transport failure with the same words, retried as it was live.
func TestLimitFailureReplays(t *testing.T) {
	for _, e := range []*Error{stallError(60 * time.Second), callTimeoutError(10 * time.Minute)} {
		for _, text := range []string{e.Message, bodyCutPrefix + e.Message} {
			got := recordedFailure(text)
			pe := AsError(got)
			if pe == nil || pe.Kind != KindNetwork || !pe.Transient() || pe.Message != e.Message {
				t.Errorf("recordedFailure(%q) = %v, want the limit again", text, got)
			}
		}
	}
	if LimitFailure("the response body was cut off: unexpected EOF") != nil || !strings.HasPrefix(stallError(time.Second).Message, "the call stalled: ") {
		t.Error("LimitFailure recognises what is not a limit")
	}
}

// Records counts what the compare strip shows: a stream's records, or one
// for a body however many reads carried it.
func TestExchangeRecords(t *testing.T) {
	chunks := []Chunk{{Data: []byte("a")}, {Data: []byte("b")}, {Data: []byte("c")}}
	for _, tt := range []struct {
		ct     string
		chunks []Chunk
		body   string
		want   int
	}{
		{"text/event-stream", chunks, "abc", 3},
		{"application/x-ndjson", chunks, "abc", 3},
		{"application/json; charset=utf-8", chunks, "abc", 1}, // three reads, one body
		{"application/json", nil, "{}", 1},
		{"application/json", nil, "", 0},
	} {
		x := Exchange{ResponseHeaders: map[string][]string{"Content-Type": {tt.ct}}, Chunks: tt.chunks, ResponseBody: []byte(tt.body)}
		if got := x.Records(); got != tt.want {
			t.Errorf("%s with %d chunks: Records() = %d, want %d", tt.ct, len(tt.chunks), got, tt.want)
		}
	}
}
