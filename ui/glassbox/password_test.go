//go:build linux

package glassbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The passphrase is read without echo; Ctrl-C (its context ending) stops
// the wait at once and gives the terminal its echo back.
func TestReadPasswordGivesTheEchoBackWhenCancelled(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	echo := func() bool {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		return tio.Lflag&unix.ECHO != 0
	}
	if !echo() {
		t.Fatal("a new terminal without echo")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ReadPassword(ctx, tty)
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for echo() {
		if time.Now().After(deadline) {
			t.Fatal("the echo was never turned off for the passphrase")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the context's", err)
	}
	if !echo() {
		t.Fatal("the terminal was left without echo")
	}

}

// Typed and entered, the passphrase is read, without echo.
func TestReadPasswordReadsALine(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	done := make(chan error, 1)
	go func() {
		s, err := ReadPassword(context.Background(), tty)
		if err == nil && s != "open-sesame" {
			err = errors.New("read " + s)
		}
		done <- err
	}()
	ptm.Write([]byte("open-sesame\n"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
