//go:build unix

package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockFolder opens dir and takes an exclusive lock on it, held until the
// descriptor closes — at the latest when glassbox's process ends, kill -9
// included.
func lockFolder(dir string) (*os.File, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// RemoveStaleCommandFolders removes the temporary folders commands of a
// glassbox that died (kill -9, a crash, a power cut) left in the temporary
// folder, and returns how many it removed. A folder is stale only when all
// of these hold: it is a real folder (not a link) owned by this user, the
// glassbox whose process id its name carries no longer runs, and nobody
// holds its lock. glassbox's main calls it at start.
func RemoveStaleCommandFolders() int {
	return removeStaleCommandFolders(os.TempDir())
}

func removeStaleCommandFolders(tmp string) int {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		pid, ok := commandTempOwner(e.Name())
		if !ok || pid == os.Getpid() || ownerRuns(pid) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		var st unix.Stat_t
		if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() {
			continue
		}
		lock, err := lockFolder(path)
		if err != nil {
			continue // in use after all, or not ours to open
		}
		if os.RemoveAll(path) == nil {
			n++
		}
		lock.Close()
	}
	return n
}

// commandTempOwner reads the process id out of a command folder's name,
// glassbox-cmd-PID-RANDOM.
func commandTempOwner(name string) (int, bool) { return ownerPID(name, commandTempPrefix) }

// ownerPID reads the process id out of a name PREFIX-PID-REST: the
// glassbox that made a command folder or a cgroup.
func ownerPID(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil && pid > 0
}

// ownerRuns reports whether a process with this id runs (or may: one we
// may not signal counts as running).
func ownerRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
