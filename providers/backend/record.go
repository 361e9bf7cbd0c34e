package backend

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/glassbox-dev/glassbox/providers"
)

// createCassette starts a cassette for path under a temporary name, so
// that nothing a person kept is truncated while glassbox records: keep
// moves it into place once the run ends. The temporary file is made in
// tempDir (glassbox's state folder, out of every command's reach; beside
// path when tempDir is ""), new (O_EXCL) and readable by its owner only, so
// no command can swap it for a cassette of its own before it is renamed. A
// recording in which no response arrived (a start that failed, a run
// interrupted before its first reply) never replaces an existing file; its
// temporary file is removed. secrets are masked in every exchange written.
func createCassette(path, tempDir string, h providers.CassetteHeader, secrets []string) (w *providers.CassetteWriter, keep func(exchanges int) error, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if tempDir == "" {
		tempDir = dir
	}
	f, err := os.CreateTemp(tempDir, "."+base+".glassbox-*.tmp")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create cassette %s: %w", path, err)
	}
	tmp := f.Name()
	if err = f.Close(); err == nil {
		w, err = providers.NewCassetteWriter(tmp, h, secrets...)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, nil, fmt.Errorf("cannot create cassette %s: %w", path, err)
	}
	keep = func(exchanges int) error {
		defer os.Remove(tmp) // gone once renamed; left over otherwise
		if exchanges == 0 {
			if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
				return nil
			}
		}
		if err := moveInto(tmp, path); err != nil {
			return fmt.Errorf("cannot put the cassette in place at %s: %w", path, err)
		}
		return nil
	}
	return w, keep, nil
}

// moveInto renames tmp to path; across filesystems (the state folder on
// another disk than path) it copies tmp into a new file beside path and
// renames that.
func moveInto(tmp, path string) error {
	err := os.Rename(tmp, path)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".glassbox-*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
