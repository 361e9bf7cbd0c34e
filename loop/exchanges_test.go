package loop

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/providers"
)

// Request bodies that repeat the conversation are stored as what is new,
// and read back whole.
func TestExchangesAreStoredAsDifferences(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := session.Create(path, session.Header{Started: time.Now(), Runs: []session.RunInfo{{Provider: "gemini"}}})
	if err != nil {
		t.Fatal(err)
	}
	var x exchangeWriter
	var bodies [][]byte
	var spans []*session.Span
	var conv bytes.Buffer
	total := 0
	for i := range 100 {
		fmt.Fprintf(&conv, `{"role":"user","parts":[{"text":"turn %d %s"}]},`, i, bytes.Repeat([]byte("x"), 200))
		body := []byte(`{"contents":[` + conv.String() + `{}],"n":` + fmt.Sprint(i) + `}`)
		exs := []providers.Exchange{{Method: "POST", RequestBody: body, ResponseBody: []byte(`{"ok":true}`), Status: 200}}
		if i == 50 {
			exs = append(exs, providers.Exchange{Method: "POST", RequestBody: []byte("short"), Status: 429})
		}
		span, err := x.write(w, exs)
		if err != nil {
			t.Fatal(err)
		}
		bodies, spans = append(bodies, body), append(spans, span)
		total += len(body)
	}
	w.Close()
	reader := NewExchangeReader(path, 0)
	for i, span := range spans {
		got, err := reader.Load(session.Record{Seq: i + 1, Exchanges: span})
		if i%7 == 0 { // read alone too, without what the reader remembers
			got, err = LoadExchanges(path, session.Record{Seq: i + 1, Exchanges: span})
		}
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if !bytes.Equal(got[0].RequestBody, bodies[i]) || string(got[0].ResponseBody) != `{"ok":true}` {
			t.Fatalf("request %d came back different", i)
		}
	}
	st, _ := os.Stat(session.ExchangesFile(path))
	if st.Size()*5 > int64(total) {
		t.Fatalf("the exchanges take %d bytes for %d bytes of bodies: not stored as differences", st.Size(), total)
	}
}
