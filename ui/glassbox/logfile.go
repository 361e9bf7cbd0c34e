package glassbox

import (
	"cmp"
	"os"
	"path/filepath"
)

// LogPath is where the TUI logs: glassbox.log in the user's state folder
// ($XDG_STATE_HOME/glassbox, or ~/.local/state/glassbox), or in the
// temporary folder when that one cannot be written. Stdout belongs to the
// screen, so everything logged — ours and the SDKs' log.Printf — goes there.
func LogPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	var firstErr error
	for _, d := range []string{filepath.Join(dir, "glassbox"), filepath.Join(os.TempDir(), "glassbox")} {
		if err := writable(d); err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		return filepath.Join(d, "glassbox.log"), nil
	}
	return "", firstErr
}

func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "glassbox.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}
