package glassbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLogFallsBackToTheTempFolder(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", "/proc/glassbox-cannot-write-here")
	path, err := LogPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(os.TempDir(), "glassbox", "glassbox.log"); path != want {
		t.Fatalf("log at %s, want %s", path, want)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if path, err := LogPath(); err != nil || path != filepath.Join(os.Getenv("XDG_STATE_HOME"), "glassbox", "glassbox.log") {
		t.Fatalf("log at %s (%v), want it in XDG_STATE_HOME", path, err)
	}
}
