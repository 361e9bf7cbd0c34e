package export

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/glassbox-dev/glassbox/history/session"
)

// FuzzExport feeds forged session files (mutations of a real lesson's, with
// its real exchanges beside them) to both formats, whole and at a step:
// each gives a page or an error, never a panic.
func FuzzExport(f *testing.F) {
	path := lessonSession(f, "write-file", "y\n")
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	exchanges, err := os.ReadFile(session.ExchangesFile(path))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, 0)
	f.Add(data, 3)
	f.Add(data[:len(data)/2], 2)
	f.Fuzz(func(t *testing.T, content []byte, step int) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.jsonl")
		if err := os.WriteFile(p, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(session.DataDir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(session.ExchangesFile(p), exchanges, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, format := range []Format{Markdown, HTML} {
			_ = Write(io.Discard, p, Options{Step: max(step, 0) % 20, Format: format})
		}
	})
}
