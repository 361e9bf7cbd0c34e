package providers

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleExchanges() []Exchange {
	return []Exchange{
		{
			Method:          "POST",
			URL:             "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
			RequestHeaders:  map[string][]string{"Content-Type": {"application/json"}, "X-Goog-Api-Key": {RedactedMark}},
			RequestBody:     []byte(`{"contents":[{"parts":[{"text":"hi"}],"role":"user"}]}`),
			Status:          200,
			ResponseHeaders: map[string][]string{"Content-Type": {"application/json; charset=UTF-8"}},
			ResponseBody:    []byte(`{"candidates":[]}`),
			Chunks:          []Chunk{{Offset: 3 * time.Millisecond, Data: []byte(`{"candidates":`)}, {Offset: 5 * time.Millisecond, Data: []byte(`[]}`)}},
			TTFB:            2 * time.Millisecond,
			Total:           6 * time.Millisecond,
			Redacted:        []string{"header x-goog-api-key"},
			Divergence:      "",
		},
		{
			Method:         "POST",
			URL:            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
			RequestHeaders: map[string][]string{"Content-Type": {"application/json"}},
			RequestBody:    []byte{0xff, 0xfe, 'b', 'i', 'n'}, // not UTF-8: stored as base64
			ResponseBody:   []byte{},
			Err:            "dial tcp: connection refused",
		},
	}
}

func TestCassetteRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.cassette.jsonl")
	w, err := NewCassetteWriter(path, CassetteHeader{Version: 7, Provider: "gemini", Model: "gemini-2.5-flash"})
	if err != nil {
		t.Fatal(err)
	}
	want := sampleExchanges()
	for _, ex := range want {
		if err := w.Write(ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(want[0]); err == nil {
		t.Error("Write after Close succeeded, want an error")
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("the cassette has %d lines, want a header and 2 exchanges:\n%s", len(lines), raw)
	}
	if !strings.HasPrefix(lines[0], `{"glassbox_cassette":1,"provider":"gemini","model":"gemini-2.5-flash","tool_mode":"","recorded_at":"`) {
		t.Errorf("header line = %s", lines[0])
	}
	if !strings.Contains(lines[1], `"request_body":"{\"contents\":[{\"parts\":[{\"text\":\"hi\"}],\"role\":\"user\"}]}"`) {
		t.Errorf("a UTF-8 body should be stored as readable text: %s", lines[1])
	}
	if !strings.Contains(lines[2], `"request_body":{"base64":"//5iaW4="}`) {
		t.Errorf("a binary body should be stored as base64: %s", lines[2])
	}

	c, err := LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Version != CassetteVersion || c.Header.Provider != "gemini" || c.Header.RecordedAt.IsZero() {
		t.Errorf("header = %+v, want version %d, provider gemini and a recording time", c.Header, CassetteVersion)
	}
	if !reflect.DeepEqual(c.Exchanges, want) {
		t.Errorf("loaded exchanges differ from the written ones:\n got %+v\nwant %+v", c.Exchanges, want)
	}
}

func TestLoadCassetteErrors(t *testing.T) {
	header := `{"glassbox_cassette":1,"provider":"gemini","model":"m","tool_mode":"","recorded_at":"2026-11-21T06:00:00Z"}`
	exchange := `{"method":"POST","url":"https://x.test/","request_headers":null,"request_body":"{}","status":200,"response_body":"{}","ttfb_ns":0,"total_ns":0}`
	tests := []struct {
		name    string
		content *string // nil: no file at all
		want    string
	}{
		{"missing file", nil, "cannot open cassette"},
		{"empty file", ptr(""), "is empty, so it is not a glassbox cassette"},
		{"plain text", ptr("hello\n"), "is not a glassbox cassette"},
		{"JSON without the header", ptr(`{"method":"POST"}` + "\n"), "is not a glassbox cassette"},
		{"a newer version", ptr(`{"glassbox_cassette":2}` + "\n"), "is a version 2 cassette, but this glassbox reads version 1"},
		{"a torn last line", ptr(header + "\n" + exchange + "\n\n" + `{"method":"PO`), "line 4 is not a complete exchange"},
		{"a bad body", ptr(header + "\n" + `{"request_body":{"base64":"%%%"}}` + "\n"), "line 2 is not a complete exchange"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.jsonl")
			if tt.content != nil {
				if err := os.WriteFile(path, []byte(*tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadCassette(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadCassette error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestLoadCassetteSkipsBlankLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	content := "\n" + `{"glassbox_cassette":1,"provider":"gemini"}` + "\n\n" + `{"method":"GET","url":"https://x.test/a","status":204}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || c.Exchanges[0].Status != 204 {
		t.Errorf("exchanges = %+v, want the one GET with status 204", c.Exchanges)
	}
}
