package serve

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/glassbox-dev/glassbox/providers/lessons"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// A learner's predict scores outlive their connection: they are kept beside
// their session as scores.json, sealed with an HMAC made from the server's
// host key (which never leaves the state folder) and bound to the learner.
// The file is untrusted input all the same: one that is too big, not JSON,
// names a lesson glassbox does not have, holds impossible numbers, belongs
// to another learner or carries no valid seal is not used, and the learner
// is told why.

const (
	scoresFile     = "scores.json"
	maxScoresBytes = 64 << 10
	maxPredictions = 1_000_000 // more predictions than any workshop makes
)

// scoresDoc is scores.json.
type scoresDoc struct {
	Learner string                    `json:"learner"`
	Scores  map[string]glassbox.Score `json:"scores"`
	Seal    string                    `json:"seal"`
}

// scoreBook keeps the learners' scores on disk.
type scoreBook struct {
	key  []byte    // the sealing key, derived from the host key
	lang lang.Lang // the language of why a file was not used

	mu    sync.Mutex
	saved map[string]int // learner id → the version last written
}

func newScoreBook(hostKey []byte, l lang.Lang) *scoreBook {
	sum := sha256.Sum256(append([]byte("glassbox-serve-scores-v1\x00"), hostKey...))
	return &scoreBook{key: sum[:], lang: l, saved: map[string]int{}}
}

// seal is the HMAC of a learner's scores: the learner's id and every
// lesson's numbers, in lesson order, each part length-prefixed.
func (b *scoreBook) seal(id string, scores map[string]glassbox.Score) string {
	m := hmac.New(sha256.New, b.key)
	w := func(s string) { io.WriteString(m, strconv.Itoa(len(s))+":"+s) }
	w(id)
	lessons := make([]string, 0, len(scores))
	for l := range scores {
		lessons = append(lessons, l)
	}
	slices.Sort(lessons)
	for _, l := range lessons {
		w(l)
		w(strconv.Itoa(scores[l].Right) + "/" + strconv.Itoa(scores[l].Total))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// load reads learner id's scores from dir. No file: none, no error. A file
// that cannot be trusted: none, and the error says why.
func (b *scoreBook) load(dir, id string) (map[string]glassbox.Score, error) {
	data, found, err := b.read(dir)
	if !found || err != nil {
		return nil, err
	}
	var doc scoresDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, errors.New(b.lang.F("%s is not a scores file: %v", scoresFile, err))
	}
	if err := b.check(id, doc); err != nil {
		return nil, err
	}
	return doc.Scores, nil
}

// read is the content of scores.json in dir, read without following a link
// out of dir and no more than maxScoresBytes of it; found is false when
// there is no such file.
func (b *scoreBook) read(dir string) (data []byte, found bool, err error) {
	root, err := os.OpenRoot(dir) // a link out of the learner's folder is not followed
	if err != nil {
		return nil, false, err
	}
	defer root.Close()
	f, err := root.Open(scoresFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", scoresFile, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, true, errors.New(b.lang.F("%s is not a regular file", scoresFile))
	}
	data, err = io.ReadAll(io.LimitReader(f, maxScoresBytes+1))
	if err != nil {
		return nil, true, err
	}
	if len(data) > maxScoresBytes {
		return nil, true, errors.New(b.lang.F("%s is over %d KB", scoresFile, maxScoresBytes>>10))
	}
	return data, true, nil
}

// check says why doc is not learner id's scores as this server sealed
// them: another learner's, a lesson glassbox does not have, an impossible
// score, no valid seal; nil when it is.
func (b *scoreBook) check(id string, doc scoresDoc) error {
	if doc.Learner != id {
		return errors.New(b.lang.F("%s belongs to another learner", scoresFile))
	}
	known := map[string]bool{"": true} // "": a request of the learner's own
	for _, l := range lessons.All() {
		known[l.Name] = true
	}
	for l, s := range doc.Scores {
		if !known[l] {
			return errors.New(b.lang.F("%s names a lesson glassbox does not have (%q)", scoresFile, l))
		}
		if s.Right < 0 || s.Total < s.Right || s.Total > maxPredictions {
			return errors.New(b.lang.F("%s holds an impossible score for %s (%d/%d)", scoresFile, b.lessonName(l), s.Right, s.Total))
		}
	}
	if !hmac.Equal([]byte(doc.Seal), []byte(b.seal(id, doc.Scores))) {
		return errors.New(b.lang.F("%s has no valid seal: it was not written by this server, or was changed since", scoresFile))
	}
	return nil
}

// save writes learner id's scores into dir (version orders the writes: an
// older one never replaces a newer). The file is replaced at once (a
// rename), readable by the server's user only.
func (b *scoreBook) save(dir, id string, version int, scores map[string]glassbox.Score) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if version <= b.saved[id] {
		return nil
	}
	data, err := json.Marshal(scoresDoc{Learner: id, Scores: scores, Seal: b.seal(id, scores)})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".scores-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, scoresFile)); err != nil {
		os.Remove(f.Name())
		return err
	}
	b.saved[id] = version
	return nil
}

func (b *scoreBook) lessonName(l string) string {
	if l == "" {
		return b.lang.T("your own request")
	}
	return b.lang.F("lesson %s", l)
}
