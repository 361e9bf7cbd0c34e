package main

import (
	"os"
	"strings"
	"sync"
	"testing"
)

// screen is one writer for stdout and stderr, as a terminal is: what both
// print lands in the order it was printed.
type screen struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// With answers piped in, nobody echoes them: each prompt's line ends with
// the answer read, and the trace's next line starts on a line of its own
// (it used to run into the prompt: "… [n]o: [PERSON] …").
func TestHeadlessPromptsEndTheirLineWhenAnswersArePiped(t *testing.T) {
	tests := []struct {
		lesson, stdin string
		prompts       []string // each prompt with the answer after it
	}{
		{"write-file", "y\n", []string{"[n]o: y"}},
		{"ask-delete", "1\ny\n", []string{"answer: 1", "[n]o: y"}},
	}
	for _, tt := range tests {
		t.Run(tt.lesson, func(t *testing.T) {
			isolate(t)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := w.WriteString(tt.stdin); err != nil {
				t.Fatal(err)
			}
			w.Close()
			var out screen
			if code := realMain(t.Context(), []string{"run", "--offline", "--lesson", tt.lesson}, r, &out, &out); code != exitOK {
				t.Fatalf("exit %d:\n%s", code, out.String())
			}
			found := 0
			for _, l := range strings.Split(out.String(), "\n") {
				for _, p := range tt.prompts {
					if strings.HasSuffix(l, p) {
						found++
					}
				}
				if strings.Contains(l, "[n]o: [") || strings.Contains(l, "answer: [") {
					t.Errorf("the trace runs into a prompt: %q", l)
				}
			}
			if found != len(tt.prompts) {
				t.Errorf("want %d prompts ending with their answer (%q), found %d:\n%s", len(tt.prompts), tt.prompts, found, out.String())
			}
		})
	}
}
