package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// A learner who reconnects keeps their predict score.
func TestPredictScoreSurvivesAReconnect(t *testing.T) {
	r := newRoom(t, Options{Predict: true})
	a := r.learn("ada")
	a.waitFor("predict 0/0 tour")
	a.keys("\r")
	a.waitFor("press space to take it")
	a.keys(" ")
	a.waitFor("ASSEMBLING_CONTEXT")
	a.keys(" ")
	a.waitFor("Which edge will the loop take from ASSEMBLING_CONTEXT?")
	a.keys("1")
	a.waitFor("predict 1/1 tour")
	a.close()
	waitUntil(t, "ada leaves", func() bool { return r.srv.Learners() == 0 })

	b := r.learn("ada")
	b.waitFor("predict 1/1 tour")
	other := r.learn("bo")
	other.waitFor("predict 0/0 tour")
}

// A scores file the server did not write for this learner is not used, and
// the learner is told why.
func TestForgedScoresAreRefused(t *testing.T) {
	r := newRoom(t, Options{Predict: true})
	dir := filepath.Join(r.opts.StateDir, "serve", "learners", learnerID("user", "eve"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, scoresFile), `{"learner":"`+learnerID("user", "eve")+`","scores":{"tour":{"right":99,"total":99}},"seal":"00"}`)
	e := r.learn("eve")
	e.waitFor("your predict scores from before were")
	e.waitFor("not used (scores.json has no valid")
	e.waitFor("predict 0/0 tour")
}

func TestScoreBookLoad(t *testing.T) {
	book := newScoreBook([]byte("host key"), "")
	const id, other = "user-aaaa", "user-bbbb"
	good := map[string]glassbox.Score{"tour": {Right: 2, Total: 3}, "": {Right: 0, Total: 1}}
	doc := func(learner string, scores map[string]glassbox.Score, seal string) string {
		b, err := json.Marshal(scoresDoc{Learner: learner, Scores: scores, Seal: seal})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sealed := func(learner string, scores map[string]glassbox.Score) string {
		return doc(learner, scores, book.seal(learner, scores))
	}
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "valid.json"), sealed(id, good))
	cases := []struct {
		name  string
		setup func(dir string)
		err   string // "" : good comes back
	}{
		{"sealed by this server", func(dir string) { writeFile(t, filepath.Join(dir, scoresFile), sealed(id, good)) }, ""},
		{"no file", func(string) {}, "none"},
		{"a number changed", func(dir string) {
			writeFile(t, filepath.Join(dir, scoresFile), strings.Replace(sealed(id, good), `"right":2`, `"right":3`, 1))
		}, "no valid seal"},
		{"another learner's file", func(dir string) { writeFile(t, filepath.Join(dir, scoresFile), sealed(other, good)) }, "belongs to another learner"},
		{"relabelled as this learner's", func(dir string) {
			writeFile(t, filepath.Join(dir, scoresFile), doc(id, good, book.seal(other, good)))
		}, "no valid seal"},
		{"another server's seal", func(dir string) {
			writeFile(t, filepath.Join(dir, scoresFile), doc(id, good, newScoreBook([]byte("other host"), "").seal(id, good)))
		}, "no valid seal"},
		{"a lesson glassbox does not have", func(dir string) {
			bad := map[string]glassbox.Score{"\x1b[31mred": {Right: 1, Total: 1}}
			writeFile(t, filepath.Join(dir, scoresFile), sealed(id, bad))
		}, "names a lesson glassbox does not have"},
		{"more right than made", func(dir string) {
			writeFile(t, filepath.Join(dir, scoresFile), sealed(id, map[string]glassbox.Score{"tour": {Right: 4, Total: 3}}))
		}, "impossible score"},
		{"negative", func(dir string) {
			writeFile(t, filepath.Join(dir, scoresFile), sealed(id, map[string]glassbox.Score{"tour": {Right: -1, Total: -1}}))
		}, "impossible score"},
		{"an unknown field", func(dir string) {
			writeFile(t, filepath.Join(dir, scoresFile), strings.Replace(sealed(id, good), `{"learner"`, `{"admin":true,"learner"`, 1))
		}, "not a scores file"},
		{"not JSON", func(dir string) { writeFile(t, filepath.Join(dir, scoresFile), "\x00\x01") }, "not a scores file"},
		{"too big", func(dir string) {
			writeFile(t, filepath.Join(dir, scoresFile), sealed(id, good)+strings.Repeat(" ", maxScoresBytes))
		}, "over 64 KB"},
		{"a link out of the folder", func(dir string) {
			if err := os.Symlink(filepath.Join(outside, "valid.json"), filepath.Join(dir, scoresFile)); err != nil {
				t.Fatal(err)
			}
		}, "scores.json"},
		{"a folder", func(dir string) {
			if err := os.Mkdir(filepath.Join(dir, scoresFile), 0o700); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(dir)
			got, err := book.load(dir, id)
			switch c.err {
			case "":
				if err != nil || len(got) != 2 || got["tour"] != good["tour"] {
					t.Fatalf("load = %v, %v; want %v", got, err, good)
				}
			case "none":
				if err != nil || got != nil {
					t.Fatalf("load = %v, %v; want nothing", got, err)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), c.err) || got != nil {
					t.Fatalf("load = %v, %v; want an error saying %q", got, err, c.err)
				}
			}
		})
	}
}

// save writes the newest version only, and the file reads back.
func TestScoreBookSave(t *testing.T) {
	book := newScoreBook([]byte("host key"), "")
	dir := t.TempDir()
	newer := map[string]glassbox.Score{"tour": {Right: 2, Total: 2}}
	if err := book.save(dir, "user-a", 2, newer); err != nil {
		t.Fatal(err)
	}
	if err := book.save(dir, "user-a", 1, map[string]glassbox.Score{"tour": {Right: 1, Total: 1}}); err != nil {
		t.Fatal(err)
	}
	got, err := book.load(dir, "user-a")
	if err != nil || got["tour"] != newer["tour"] {
		t.Fatalf("load = %v, %v; want the newer scores", got, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, scoresFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("scores.json: %v, %v; want mode 0600", fi, err)
	}
}
