package main

import (
	"bytes"
	"context"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// The flags that name one person's files have no meaning in a room.
func TestServeRefusesOnePersonsFlags(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"serve", "--resume", "x"}, {"serve", "--workspace", "."}, {"serve", "--session", "s.jsonl"},
		{"serve", "--compare"}, {"serve", "--trace", "t.jsonl"}, {"serve", "extra"},
		{"serve", "--max-learners", "0"},
	} {
		var out, errb bytes.Buffer
		if code := realMain(context.Background(), args, nil, &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, errb.String())
		}
		if !strings.HasPrefix(errb.String(), "glassbox serve: ") {
			t.Errorf("%q: stderr %q", args, errb.String())
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `glassbox serve` prints where it listens, the passphrase and the host
// key's fingerprint; the passphrase gets a learner in; a signal stops it.
func TestServeAnnouncesAndServes(t *testing.T) {
	isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() { done <- realMain(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, nil, &out, &errb) }()
	re := regexp.MustCompile(`listening on (\S+) [\s\S]*workshop passphrase:\s+(\S+)\n[\s\S]*host key fingerprint:\s+(SHA256:\S+)\n[\s\S]*offline simulation`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; m = re.FindStringSubmatch(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no announcement; stdout %q stderr %q", out.String(), errb.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	var seen string
	c, err := gossh.Dial("tcp", m[1], &gossh.ClientConfig{User: "ada", Auth: []gossh.AuthMethod{gossh.Password(m[2])},
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error { seen = gossh.FingerprintSHA256(k); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if seen != m[3] {
		t.Fatalf("the server's key is %s, the announcement says %s", seen, m[3])
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(out.String(), "every learner's session is kept") {
		t.Fatalf("stdout %q", out.String())
	}
}
