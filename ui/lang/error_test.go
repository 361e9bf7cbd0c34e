package lang

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

func TestErrorSaysSentencesInTheLanguage(t *testing.T) {
	usage := errors.New("usage")
	corrupt := sentence.Errorf("the session file is corrupt")
	tests := []struct {
		name   string
		err    error
		en, ja string
	}{
		{"a sentence", sentence.Errorf("--max-iterations %d: want at least 1", 0),
			"--max-iterations 0: want at least 1", "--max-iterations 0: 1 以上を指定してください"},
		{"a sentence wrapping a sentence", sentence.Errorf("%w: %s is empty; it is not a glassbox session file", corrupt, "/s.jsonl"),
			"the session file is corrupt: /s.jsonl is empty; it is not a glassbox session file",
			"セッションファイルが壊れています: /s.jsonl は空です。glassbox のセッションファイルではありません"},
		{"fmt wrapping a sentence keeps its own words", fmt.Errorf("%w: --resume: %w", usage, corrupt),
			"usage: --resume: the session file is corrupt", "usage: --resume: セッションファイルが壊れています"},
		{"a sentence with an error value", sentence.Errorf("unreadable: %v", corrupt),
			"unreadable: the session file is corrupt", "読めません: セッションファイルが壊れています"},
		{"an error that is no sentence stays as it is", fmt.Errorf("open x: %w", fs.ErrNotExist),
			"open x: file does not exist", "open x: file does not exist"},
		{"a provider's failure", providers.StatusFailure("Ollama at http://h:1", 429, "", nil, nil),
			"Ollama at http://h:1 is rate limiting requests (429) — wait a moment and try again.",
			"Ollama at http://h:1 がリクエストを制限しています(429) — 少し待ってからもう一度試してください。"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EN.Error(tc.err); got != tc.en || got != tc.err.Error() {
				t.Errorf("EN.Error = %q, want %q (= Error())", got, tc.en)
			}
			if got := JA.Error(tc.err); got != tc.ja {
				t.Errorf("JA.Error = %q, want %q", got, tc.ja)
			}
		})
	}
	if JA.Error(nil) != "" {
		t.Error("JA.Error(nil) is not empty")
	}
}

// A provider error whose Message was changed after it was said is shown
// as its Message: the sentence no longer says it.
func TestErrorOfAnEditedProviderMessageIsTheMessage(t *testing.T) {
	e := providers.Errorf(providers.KindOther, 0, nil, "the call to %s was cancelled.", "x")
	e.Message = "something else"
	if got := JA.Error(e); got != "something else" {
		t.Errorf("JA.Error = %q", got)
	}
}

// The .env warnings say a dialect's Address.What, a format that is data
// (agentrun.DotEnvAddresses): each is in the catalog.
func TestDotEnvAddressWarningsHaveJapanese(t *testing.T) {
	addrs := backend.Addresses()
	if len(addrs) == 0 {
		t.Fatal("no addresses")
	}
	for _, a := range addrs {
		if !Has(a.What) {
			t.Errorf("no Japanese for %s's %q", a.Var, a.What)
		}
	}
}
