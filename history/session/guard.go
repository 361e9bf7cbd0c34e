package session

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// A session file is untrusted input: anyone can write one, and a learner may
// be handed one. What in it could make glassbox act without the person —
// the calls the person allowed for the session (a checkpoint's grants, the
// approval that put a step in EXECUTING_TOOL) and an approval saved just
// before a crash — counts only when it carries a seal: an HMAC-SHA256 made
// with a key that never leaves this user's state folder
// ($XDG_STATE_HOME/glassbox/approvals.key, 0600). A file from anyone else,
// or edited, has no valid seal, and glassbox asks the person again.

// KeyFile is the name of the sealing key in glassbox's state folder.
const KeyFile = "approvals.key"

// Key seals the approvals a session file carries.
type Key struct{ k []byte }

// LoadKey reads the sealing key from stateDir, creating it (32 random bytes,
// readable by its owner only, never overwritten) the first time. A key file
// that is not a regular file of the owner's, or that others can read, is
// refused: a key anyone can read seals nothing.
func LoadKey(stateDir string) (*Key, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(stateDir, KeyFile)
	k, err := newKeyFile(stateDir, path)
	if err == nil {
		return &Key{k: k}, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s must be a file only its owner can read (it is %s); remove it and glassbox makes a new one", path, st.Mode())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err = base64.StdEncoding.DecodeString(string(trimNewline(data)))
	if err != nil || len(k) < 32 {
		return nil, fmt.Errorf("%s is not a glassbox key; remove it and glassbox makes a new one", path)
	}
	return &Key{k: k}, nil
}

// newKeyFile makes a new key and puts it at path whole or not at all: the
// key is written to a temporary file beside it, which is then linked to
// path. A link never replaces a file, so when two glassboxes start at once
// (learners arriving together in a served room) one key wins and the other
// reads it complete; a half-written key is never seen under path. It returns
// fs.ErrExist when path is already there.
func newKeyFile(dir, path string) ([]byte, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fs.ErrExist
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".approvals-*.key") // 0600
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, werr := f.Write([]byte(base64.StdEncoding.EncodeToString(k) + "\n"))
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return nil, err
	}
	if err := os.Link(f.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fs.ErrExist
		}
		return nil, fmt.Errorf("saving the key that seals approvals: %w", err)
	}
	return k, nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// sealable reports whether a record carries something a seal vouches for:
// a step's checkpoint and the files it changed (a fork writes them back),
// an approval, the workspace's manifest before a tool ran.
func sealable(r Record) bool {
	return r.Kind == KindStep || r.Kind == KindAnswer && r.Approval != nil || r.Kind == KindBegin && r.Manifest != ""
}

// seal is the HMAC of what r vouches for, bound to the session (its
// header's start time and request) and to r's run, kind and step.
func (k *Key) seal(h Header, r Record) string {
	m := hmac.New(sha256.New, k.k)
	w := func(b []byte) {
		io.WriteString(m, strconv.Itoa(len(b))+":")
		m.Write(b)
	}
	w([]byte("glassbox-session-seal-v1"))
	w([]byte(h.Started.UTC().Format(time.RFC3339Nano)))
	w([]byte(h.Request))
	w([]byte(r.Run))
	w([]byte(r.Kind))
	w([]byte(strconv.Itoa(r.Seq)))
	switch r.Kind {
	case KindStep:
		w(r.Checkpoint)
		changes, _ := json.Marshal(r.Changes)
		w(changes)
	case KindAnswer:
		w([]byte(strconv.Itoa(*r.Approval)))
	case KindBegin:
		w([]byte(r.Manifest))
	}
	return base64.RawStdEncoding.EncodeToString(m.Sum(nil))
}

// Sealed reports whether r carries a valid seal made with k for the session
// whose header is h. A nil key trusts nothing.
func (k *Key) Sealed(h Header, r Record) bool {
	if k == nil || r.Seal == "" || !sealable(r) {
		return false
	}
	return hmac.Equal([]byte(r.Seal), []byte(k.seal(h, r)))
}

// Masker is what masks secrets in everything the session keeps
// (providers.Masker): every line of the file and every copy of a file.
type Masker interface {
	// MaskJSON returns a JSON document with every secret masked, still
	// valid JSON.
	MaskJSON([]byte) []byte
	// Holds reports whether b holds a secret in any spelling.
	Holds(b []byte) bool
}

// Guard sets what the writer does to each record before it is written:
// every secret masked (mask; nil masks nothing), and each checkpoint and
// approval sealed with key (nil seals nothing, and a resumed session then
// trusts none of its approvals). Copies of files that hold a secret are
// never kept (Blobs.Put). Call it before the first Write.
func (w *Writer) Guard(key *Key, mask Masker) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.key, w.mask = key, mask
	w.blobs.mask = mask
}

// Sealed reports whether r, read from the file w continues, carries a valid
// seal of this user's.
func (w *Writer) Sealed(r Record) bool { return w.key.Sealed(w.header, r) }

// maskJSON masks b when the writer has a Masker.
func (w *Writer) maskJSON(b []byte) []byte {
	if w.mask == nil || len(b) == 0 {
		return b
	}
	return w.mask.MaskJSON(b)
}

// prepare masks and seals a record before it is written.
func (w *Writer) prepare(r Record) Record {
	if w.mask != nil {
		r.Checkpoint = w.maskJSON(r.Checkpoint)
	}
	r.Seal = ""
	if w.key != nil && sealable(r) {
		r.Seal = w.key.seal(w.header, r)
	}
	return r
}
