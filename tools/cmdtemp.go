package tools

import (
	"fmt"
	"os"
	"path/filepath"
)

// commandTempPrefix starts the name of every command's temporary folder:
// glassbox-cmd-PID-RANDOM, PID being the glassbox that made it.
const commandTempPrefix = "glassbox-cmd-"

// commandTemp is one command's temporary folder: TMPDIR, with its HOME
// inside. While the command runs glassbox holds a lock on it, so the next
// start can tell a folder left by a dead run from one in use.
type commandTemp struct {
	dir, home string
	lock      *os.File
}

// newCommandTemp makes a command's temporary folder and its home folder,
// both private (0700), and locks it.
func newCommandTemp() (commandTemp, error) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-*", commandTempPrefix, os.Getpid()))
	if err != nil {
		return commandTemp{}, err
	}
	t := commandTemp{dir: dir, home: filepath.Join(dir, "home")}
	if t.lock, err = lockFolder(dir); err == nil {
		err = os.Mkdir(t.home, 0o700)
	}
	if err != nil {
		t.remove()
		return commandTemp{}, err
	}
	return t, nil
}

// remove deletes the folder, then lets go of its lock.
func (t commandTemp) remove() {
	os.RemoveAll(t.dir)
	if t.lock != nil {
		t.lock.Close()
	}
}
