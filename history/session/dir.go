package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
)

// Dir is where sessions are saved by default: $XDG_STATE_HOME/glassbox/sessions,
// or ~/.local/state/glassbox/sessions when XDG_STATE_HOME is not set.
func Dir(getenv func(string) string) (string, error) {
	if s := getenv("XDG_STATE_HOME"); s != "" {
		if !filepath.IsAbs(s) {
			return "", sentence.Errorf("XDG_STATE_HOME=%s is not an absolute path (the XDG spec says to ignore it, and so that a session is never saved somewhere unexpected, glassbox stops instead: set it to an absolute path or unset it)", s)
		}
		return filepath.Join(s, "glassbox", "sessions"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", sentence.Errorf("neither XDG_STATE_HOME nor HOME is set, so there is no place for sessions; name a file with --session FILE")
	}
	return filepath.Join(home, ".local", "state", "glassbox", "sessions"), nil
}

// NewPath makes dir and names a new session file in it: its id is the start
// time and a few random letters, e.g. 20261124-150405-3fa9.
func NewPath(dir string, now time.Time) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", sentence.Errorf("the sessions folder %s: %w", dir, err)
	}
	return newPath(dir, now, func() string {
		var b [2]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	})
}

// newPath names a session file for now with a suffix from draw. Sessions
// started in the same second share the stamp, so a name already taken is
// drawn again rather than handed out twice.
func newPath(dir string, now time.Time, draw func() string) (string, error) {
	stamp := now.UTC().Format("20060102-150405")
	for {
		path := filepath.Join(dir, stamp+"-"+draw()+".jsonl")
		_, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return path, nil
		case err != nil:
			return "", sentence.Errorf("the sessions folder %s: %w", dir, err)
		}
	}
}

// Find resolves what --resume names: a path to a session file, or the id
// of a session in dir.
func Find(dir, idOrFile string) (string, error) { return Locate("--resume", dir, idOrFile) }

// Locate resolves a session named on the command line the way --resume
// takes it: a path to a session file, or the id of a session in dir. what
// names the command or flag that asked, for its messages.
func Locate(what, dir, idOrFile string) (string, error) {
	if idOrFile == "" {
		return "", sentence.Errorf("%s needs a session id or file (see 'glassbox sessions')", what)
	}
	if strings.ContainsRune(idOrFile, os.PathSeparator) || strings.HasSuffix(idOrFile, ".jsonl") {
		if _, err := os.Stat(idOrFile); err != nil {
			return "", fmt.Errorf("%s %s: %w", what, idOrFile, err)
		}
		return idOrFile, nil
	}
	path := filepath.Join(dir, idOrFile+".jsonl")
	if _, err := os.Stat(path); err != nil {
		if _, err2 := os.Stat(idOrFile); err2 == nil {
			return idOrFile, nil
		}
		return "", sentence.Errorf("%s %s: no session with that id in %s (see 'glassbox sessions')", what, idOrFile, dir)
	}
	return path, nil
}
