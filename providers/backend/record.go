package backend

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/glassbox-dev/glassbox/providers"
)

// createCassette starts a cassette for path under a temporary name beside
// it, so that nothing a person kept is truncated while glassbox records:
// keep moves it into place once the run ends. A recording in which no
// response arrived (a start that failed, a run interrupted before its first
// reply) never replaces an existing file; its temporary file is removed.
func createCassette(path string, h providers.CassetteHeader) (w *providers.CassetteWriter, keep func(exchanges int) error, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".glassbox-*.tmp")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create cassette %s: %w", path, err)
	}
	tmp := f.Name()
	err = errors.Join(f.Chmod(0o644), f.Close())
	if err == nil {
		w, err = providers.NewCassetteWriter(tmp, h)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, nil, fmt.Errorf("cannot create cassette %s: %w", path, err)
	}
	keep = func(exchanges int) error {
		if exchanges == 0 {
			if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
				os.Remove(tmp)
				return nil
			}
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("cannot put the cassette in place at %s: %w", path, err)
		}
		return nil
	}
	return w, keep, nil
}
