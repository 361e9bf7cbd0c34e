package serve

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
)

// reads is a channel's input as it arrives: one read per chunk, each at
// its own time.
type reads struct {
	chunks []string
	at     []time.Duration
	i      int
	clock  *time.Time
}

func (r *reads) Read(p []byte) (int, error) {
	if r.i == len(r.chunks) {
		return 0, io.EOF
	}
	if r.clock != nil && r.i < len(r.at) {
		*r.clock = time.Unix(0, 0).Add(r.at[r.i])
	}
	n := copy(p, r.chunks[r.i])
	r.i++
	return n, nil
}

// guarded runs chunks through an inputGuard with limit, returning what the
// program would read and what the learner was told.
func guarded(t *testing.T, limit int, chunks []string, at ...time.Duration) (string, []string) {
	t.Helper()
	var clock time.Time
	var told []string
	src := &reads{chunks: chunks, at: at, clock: &clock}
	g := newInputGuard(src, limit, "", func(s string) { told = append(told, s) })
	g.now = func() time.Time { return clock }
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), told
}

func TestInputGuard(t *testing.T) {
	const ms = time.Millisecond
	long := strings.Repeat("x", 40)
	cases := []struct {
		name   string
		limit  int
		chunks []string
		at     []time.Duration
		want   string
		told   []string
	}{
		{"typing passes", 16, []string{"ab", "c\x1b[A", "\x1b"}, nil, "abc\x1b[A\x1b", nil},
		{"a paste within the limit passes whole", 16, []string{"a\x1b[200~small paste\x1b[201~b"}, nil, "a\x1b[200~small paste\x1b[201~b", nil},
		{"markers split across reads", 16, []string{"a\x1b[20", "0~small", " paste\x1b[2", "01~b"}, nil, "a\x1b[200~small paste\x1b[201~b", nil},
		{"a paste over the limit is dropped whole", 16, []string{"a\x1b[200~" + long[:20], long[20:] + "\x1b[201~b"}, nil, "ab",
			[]string{"paste over the room's limit of 16 bytes: refusing it…", "paste refused: 40 bytes, over the room's limit of 16 (nothing was pasted)"}},
		{"after a refused paste, the next one passes", 16, []string{"\x1b[200~" + long + "\x1b[201~", "\x1b[200~ok\x1b[201~"}, []time.Duration{0, 500 * ms}, "\x1b[200~ok\x1b[201~",
			[]string{"paste over the room's limit of 16 bytes: refusing it…", "paste refused: 40 bytes, over the room's limit of 16 (nothing was pasted)"}},
		{"an unbracketed burst is cut at the limit", 16, []string{long[:10], long[10:], "more"}, []time.Duration{0, 1 * ms, 2 * ms}, long[:16],
			[]string{"input cut: more than 16 bytes arrived at once (the room's paste limit); the rest was dropped"}},
		{"the input goes quiet: typing passes again", 16, []string{long, "k"}, []time.Duration{0, 200 * ms}, long[:16] + "k",
			[]string{"input cut: more than 16 bytes arrived at once (the room's paste limit); the rest was dropped"}},
		{"typing spread over time is no burst", 16, []string{long[:10], long[10:20], long[20:30]}, []time.Duration{0, 150 * ms, 300 * ms}, long[:30], nil},
		{"a lone esc is never held back", 16, []string{"\x1b"}, nil, "\x1b", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, told := guarded(t, c.limit, c.chunks, c.at...)
			if got != c.want {
				t.Errorf("the program read %q, want %q", got, c.want)
			}
			if strings.Join(told, "\n") != strings.Join(c.told, "\n") {
				t.Errorf("the learner was told %q, want %q", told, c.told)
			}
		})
	}
}

// endless is a bracketed paste that does not end: the start marker, then
// n bytes of x, then the channel closes.
type endless struct {
	started bool
	n       int
}

func (e *endless) Read(p []byte) (int, error) {
	if !e.started {
		e.started = true
		return copy(p, "\x1b[200~"), nil
	}
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return k, nil
}

// However much a paste holds, the guard holds at most the limit and one read.
func TestInputGuardHoldsLittle(t *testing.T) {
	g := newInputGuard(&endless{n: 64 << 20}, 4096, "", func(string) {})
	if n, err := g.Read(make([]byte, 256)); n != 0 || err != io.EOF {
		t.Fatalf("Read = %d, %v; want nothing of the paste, then io.EOF", n, err)
	}
	if seen := g.bytesSeen(); seen < 64<<20 {
		t.Fatalf("the guard read %d bytes, want all of them", seen)
	}
	if hw := g.highWater(); hw > 4096+guardChunk+16 {
		t.Fatalf("the guard held %d bytes at once, over the limit and one read", hw)
	}
}

// A paste far over the limit, through a real SSH client: it never reaches
// the program (memory stays bounded: the program would hold the whole
// paste, four bytes a character, before it could refuse it), the learner
// is told, and the glass box goes on.
func TestHugePasteRefusedAtTheChannel(t *testing.T) {
	r := newRoom(t, Options{MaxPaste: 4096})
	a := r.learn("ada")
	a.waitFor("Enter: send the tour lesson")

	const size = 64 << 20
	var peak atomic.Uint64
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	a.keys("\x1b[200~")
	chunk := bytes.Repeat([]byte("y"), 32<<10)
	for sent := 0; sent < size; sent += len(chunk) {
		a.keys(string(chunk))
	}
	a.keys("\x1b[201~")
	a.waitFor("paste refused: 67108864 bytes, over the room's limit of 4096 (nothing was pasted)")
	close(stop)
	wg.Wait()
	grew := int64(peak.Load()) - int64(base)
	t.Logf("a %d MB paste: the heap in use grew by at most %.1f MB", size>>20, float64(grew)/(1<<20))
	if grew > 32<<20 {
		t.Errorf("the heap grew by %d MB during a %d MB paste", grew>>20, size>>20)
	}
	a.keys("\x1b[200~hello after\x1b[201~")
	a.waitFor("hello after")
	if strings.Contains(a.text(), "yyyyyyyy") {
		t.Fatal("the refused paste reached the screen")
	}
}

// A room served with --lang ja tells its learners in Japanese.
func TestPasteRefusedInTheRoomsLanguage(t *testing.T) {
	run := agentrun.Defaults(false)
	run.Offline, run.SimLatency, run.Lang = true, 0, "ja"
	r := newRoom(t, Options{MaxPaste: 16, Run: run})
	a := r.learn("ada")
	a.waitFor("OFFLINE")
	a.keys("\x1b[200~" + strings.Repeat("z", 40) + "\x1b[201~")
	a.waitFor("貼り付けを断りました: 40 バイトで")
}
