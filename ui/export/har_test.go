package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/har"
	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/ui/headless"
)

// readHAR reads every entry of a HAR file with glassbox's reader.
func readHAR(t *testing.T, data []byte) []har.Entry {
	t.Helper()
	r := har.NewReader(bytes.NewReader(data))
	var out []har.Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("the exported HAR does not read back: %v", err)
		}
		out = append(out, e)
	}
}

// sessionExchanges are the exchanges a session holds, step by step.
func sessionExchanges(t *testing.T, path string) (xs []providers.Exchange, steps []int) {
	t.Helper()
	f, err := session.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	reader := loop.NewExchangeReader(path, 0)
	for _, rl := range f.Runs {
		for _, st := range rl.Steps {
			got, err := reader.Load(st)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range got {
				xs, steps = append(xs, x), append(steps, st.Seq)
			}
		}
	}
	return xs, steps
}

// TestExportHAR: `glassbox export SESSION --format har` writes every
// exchange of the session — the 429 and the retry that followed it — in
// order, each at its step and at the time it was sent, and the file reads
// back through the HAR reader with the same bodies and statuses.
func TestExportHAR(t *testing.T) {
	path := lessonSession(t, "rate-limit", "")
	var out bytes.Buffer
	if err := Write(&out, path, Options{Format: HAR, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log struct {
			Version string
			Creator struct{ Name, Version string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Log.Version != "1.2" || doc.Log.Creator.Name != "glassbox" || doc.Log.Creator.Version != "test" {
		t.Fatalf("log = %+v, %v", doc.Log, err)
	}
	entries := readHAR(t, out.Bytes())
	want, steps := sessionExchanges(t, path)
	if len(entries) != len(want) || len(want) < 2 {
		t.Fatalf("%d entries, the session has %d exchanges", len(entries), len(want))
	}
	for i, e := range entries {
		if e.Exchange.Status != want[i].Status || !bytes.Equal(e.Exchange.ResponseBody, want[i].ResponseBody) || !bytes.Equal(e.Exchange.RequestBody, want[i].RequestBody) {
			t.Errorf("entry %d is not the session's exchange %d", i+1, i+1)
		}
		if e.Meta.Step != steps[i] || e.Meta.Kind != har.KindModel {
			t.Errorf("entry %d: meta %+v, want step %d", i+1, e.Meta, steps[i])
		}
		if i > 0 {
			prev := entries[i-1]
			if e.Started.Before(prev.Started.Add(prev.Exchange.Total.Truncate(time.Millisecond))) {
				t.Errorf("entry %d starts at %v, before entry %d ended", i+1, e.Started, i)
			}
		}
	}
	if entries[0].Exchange.Status != 429 {
		t.Errorf("the first entry answered %d, want the lesson's 429", entries[0].Exchange.Status)
	}
	// One step alone.
	out.Reset()
	if err := Write(&out, path, Options{Format: HAR, Step: steps[len(steps)-1]}); err != nil {
		t.Fatal(err)
	}
	if got := readHAR(t, out.Bytes()); len(got) == 0 || got[0].Meta.Step != steps[len(steps)-1] {
		t.Errorf("--step %d exported %d entries", steps[len(steps)-1], len(got))
	}
}

// A cassette exports too, and a key given as a secret never reaches the
// file even when the recording holds it.
func TestExportHARFromCassette(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	l, _ := lessons.ByName("tour")
	c := agentrun.Defaults(true)
	c.Offline, c.Lesson, c.Version = true, "tour", "test"
	c.Record = filepath.Join(dir, "tour.cassette")
	runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return headless.NewPerson(strings.NewReader(""), io.Discard) })
	if err != nil {
		t.Fatal(err)
	}
	headless.Run(context.Background(), runs, l.Request, headless.Options{}, io.Discard, io.Discard)
	if err := agentrun.CloseAll(runs); err != nil {
		t.Fatal(err)
	}
	cas, err := providers.LoadCassette(c.Record)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	secret := "generateContent" // a word every request URL holds, standing in for a key
	if err := Write(&out, c.Record, Options{Format: HAR, Secrets: []string{secret}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), secret) {
		t.Error("a secret reached the HAR file")
	}
	entries := readHAR(t, out.Bytes())
	if len(entries) != len(cas.Exchanges) || len(entries) == 0 {
		t.Fatalf("%d entries from a cassette of %d exchanges", len(entries), len(cas.Exchanges))
	}
	if !entries[0].Started.Equal(cas.Header.RecordedAt) {
		t.Errorf("the first entry starts at %v, the recording at %v", entries[0].Started, cas.Header.RecordedAt)
	}
	if err := Write(&out, c.Record, Options{Format: HAR, Step: 1}); err == nil {
		t.Error("--step on a cassette was accepted")
	}
}
