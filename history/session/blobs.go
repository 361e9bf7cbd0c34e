package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/glassbox-dev/glassbox/history/sentence"
)

// Blobs is a content-addressed store of file contents (SHA-256), kept in the
// session's folder: the before and after images of the files steps change.
type Blobs struct {
	dir  string
	mask Masker // a content that holds a secret is not kept (nil: all are)
}

// ErrWithheld: the content holds a secret, so the session kept no copy.
var ErrWithheld = sentence.Errorf("it holds a secret, and glassbox never keeps a copy of a secret")

// OpenBlobs is the store of the session at path, for reading.
func OpenBlobs(path string) *Blobs { return &Blobs{dir: filepath.Join(DataDir(path), "blobs")} }

// Hash is the name a content gets in the store.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (b *Blobs) path(hash string) (string, error) {
	if len(hash) != 64 {
		return "", sentence.Errorf("%w: %q is not a content hash", ErrCorrupt, hash)
	}
	if _, err := hex.DecodeString(hash); err != nil {
		return "", sentence.Errorf("%w: %q is not a content hash", ErrCorrupt, hash)
	}
	return filepath.Join(b.dir, hash[:2], hash[2:]), nil
}

// Withheld reports whether the content named hash was not kept because
// it holds a secret.
func (b *Blobs) Withheld(hash string) bool {
	p, err := b.path(hash)
	if err != nil {
		return false
	}
	_, err = os.Stat(p + withheldSuffix)
	return err == nil
}

// withheldSuffix marks a content the store saw and did not keep.
const withheldSuffix = ".withheld"

// Has reports whether hash is stored.
func (b *Blobs) Has(hash string) bool {
	p, err := b.path(hash)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}

// Put stores data under its hash (once) and returns the hash. A content
// that holds a secret (a workspace's .env) is not stored: only a mark that
// it was seen, so that a fork that would need it says why it cannot put
// it back.
func (b *Blobs) Put(data []byte) (string, error) {
	h := Hash(data)
	p, _ := b.path(h)
	if _, err := os.Stat(p); err == nil {
		return h, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	if b.mask != nil && b.mask.Holds(data) {
		f, err := os.OpenFile(p+withheldSuffix, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return "", err
		}
		return h, f.Close()
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return h, nil
}

// Get reads the content stored under hash and checks it.
func (b *Blobs) Get(hash string) ([]byte, error) {
	p, err := b.path(hash)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) && b.Withheld(hash) {
		return nil, sentence.Errorf("the copy of a file (%s…) is not in %s: %w", hash[:12], b.dir, ErrWithheld)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, sentence.Errorf("%w: the copy of a file (%s…) is missing from %s", ErrCorrupt, hash[:12], b.dir)
	}
	if err != nil {
		return nil, err
	}
	if Hash(data) != hash {
		return nil, sentence.Errorf("%w: the copy of a file (%s…) in %s was changed", ErrCorrupt, hash[:12], b.dir)
	}
	return data, nil
}
