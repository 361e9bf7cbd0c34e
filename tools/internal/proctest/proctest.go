//go:build linux

// Package proctest finds a running process by its command line and reads
// its session and controlling terminal the way the test sees them: from
// outside, in the test's own PID namespace.
//
// A process confined in a PID namespace of its own cannot say whose
// session it is in: a session led from outside its namespace reads as 0,
// and so does the test's own session when the test itself runs in a
// container whose session leader it cannot see (CI does). Compared from
// inside, the two zeros would look like the same session. Read from the
// test's side, the command's session leader is one of the test's own
// descendants and has a real number.
package proctest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Stat is what /proc/PID/stat says about one process.
type Stat struct {
	PID     int
	Session int // the session leader's PID, 0 if it is outside our namespace
	TTY     int // tty_nr: 0 when the process has no controlling terminal
}

// Find waits up to timeout for a live process whose command line is
// exactly argv, and returns its Stat.
func Find(timeout time.Duration, argv ...string) (Stat, error) {
	want := strings.Join(argv, "\x00") + "\x00"
	deadline := time.Now().Add(timeout)
	for {
		if st, ok := scan(want); ok {
			return st, nil
		}
		if time.Now().After(deadline) {
			return Stat{}, fmt.Errorf("no process %q appeared within %s", strings.Join(argv, " "), timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// scan looks once through /proc for a live process running want.
func scan(want string) (Stat, bool) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || string(b) != want {
			continue
		}
		st, err := read(pid)
		if err == nil {
			return st, true
		}
	}
	return Stat{}, false
}

// read parses /proc/PID/stat: after the command's name in parentheses
// come state, ppid, pgrp, session and tty_nr. A zombie does not count.
func read(pid int) (Stat, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return Stat{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Stat{}, errors.New("no command name in " + s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 5 || f[0] == "Z" {
		return Stat{}, errors.New("not a live process: " + s)
	}
	st := Stat{PID: pid}
	if st.Session, err = strconv.Atoi(f[3]); err != nil {
		return Stat{}, err
	}
	if st.TTY, err = strconv.Atoi(f[4]); err != nil {
		return Stat{}, err
	}
	return st, nil
}

// Check says what is wrong, if anything, with a process that should lead
// or belong to a session of its own, not the test's, with no terminal.
func (st Stat) Check() error {
	mine, err := unix.Getsid(0)
	if err != nil {
		return err
	}
	switch {
	case st.Session == 0:
		return fmt.Errorf("process %d: its session is led from outside the test's PID namespace, so it is not one of its own", st.PID)
	case st.Session == mine || st.Session == os.Getpid():
		return fmt.Errorf("process %d runs in the test's own session %d", st.PID, st.Session)
	case st.TTY != 0:
		return fmt.Errorf("process %d has a controlling terminal (tty_nr %d)", st.PID, st.TTY)
	}
	return nil
}
