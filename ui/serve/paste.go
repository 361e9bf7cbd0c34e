package serve

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// inputGuard sits between a learner's SSH channel and their glass box and
// enforces the paste limit before anything is read into the program: a
// bracketed paste over the limit is dropped as it streams in (nothing of it
// is pasted), and so is an unbracketed burst — more than the limit arriving
// within burstWindow, faster than anyone types — until the input goes quiet.
// It holds at most the limit plus one read of the channel, however much
// arrives. The learner is told through notify.
type inputGuard struct {
	src    io.Reader
	limit  int
	now    func() time.Time
	chunk  []byte
	out    []byte // bytes for the program, not yet read
	notice func(string)
	lang   lang.Lang // the language of what the learner is told

	mode      guardMode
	held      []byte // a marker's beginning, seen at the end of a read
	paste     bytes.Buffer
	pasteSize int // bytes of the paste being dropped
	burst     int // bytes of unbracketed input in the current window
	window    time.Time
	lastRead  time.Time

	mu   sync.Mutex
	high int   // the most bytes held at once (tests read it)
	seen int64 // bytes read from the channel
}

type guardMode int

const (
	passing  guardMode = iota // input goes through
	pasting                   // inside a bracketed paste within the limit so far
	dropping                  // inside a bracketed paste over the limit
	cutting                   // an unbracketed burst over the limit, until quiet
)

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// burstWindow is the time in which more than the limit arriving unbracketed
// is a paste, not typing; quietGap is how long the input must pause before
// a cut burst ends.
const (
	burstWindow = 100 * time.Millisecond
	quietGap    = 100 * time.Millisecond
	guardChunk  = 4096
)

func newInputGuard(src io.Reader, limit int, l lang.Lang, notice func(string)) *inputGuard {
	return &inputGuard{src: src, limit: limit, lang: l, now: time.Now, chunk: make([]byte, guardChunk), notice: notice}
}

func (g *inputGuard) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		n, err := g.src.Read(g.chunk)
		g.filter(g.chunk[:n])
		if err != nil && len(g.out) == 0 {
			return 0, err
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// filter takes one read of the channel and appends what passes to out.
func (g *inputGuard) filter(b []byte) {
	g.mu.Lock()
	g.seen += int64(len(b))
	g.mu.Unlock()
	t := g.now()
	quiet := t.Sub(g.lastRead) >= quietGap
	g.lastRead = t
	if g.mode == cutting && quiet {
		g.mode = passing
	}
	if t.Sub(g.window) >= burstWindow || quiet {
		g.window, g.burst = t, 0
	}
	if len(g.held) > 0 {
		b = append(g.held, b...)
		g.held = nil
	}
	for len(b) > 0 {
		switch g.mode {
		case passing:
			b = g.pass(b)
		case pasting, dropping:
			b = g.inPaste(b)
		case cutting:
			return
		}
	}
	g.mu.Lock()
	g.high = max(g.high, len(g.out)+g.paste.Len()+len(g.held))
	g.mu.Unlock()
}

// pass lets b through up to the start of a paste; a burst over the limit
// is cut. It returns what is left of b.
func (g *inputGuard) pass(b []byte) []byte {
	rest := []byte(nil)
	if i := bytes.Index(b, pasteStart); i >= 0 {
		b, rest = b[:i], b[i+len(pasteStart):]
	} else if k := heldMarker(b, pasteStart); k > 0 {
		b, g.held = b[:len(b)-k], append([]byte(nil), b[len(b)-k:]...)
	}
	if g.burst+len(b) > g.limit {
		keep := max(g.limit-g.burst, 0)
		g.out = append(g.out, b[:keep]...)
		g.mode, g.held, g.burst = cutting, nil, g.limit
		g.tell(g.lang.F("input cut: more than %d bytes arrived at once (the room's paste limit); the rest was dropped", g.limit))
		return nil
	}
	g.burst += len(b)
	g.out = append(g.out, b...)
	if rest != nil {
		g.mode = pasting
		g.paste.Reset()
		g.pasteSize = 0
	}
	return rest
}

// inPaste takes b inside a bracketed paste: kept while within the limit,
// dropped once over it; the paste's end passes it on or tells the learner.
func (g *inputGuard) inPaste(b []byte) []byte {
	body, rest, ended := b, []byte(nil), false
	if i := bytes.Index(b, pasteEnd); i >= 0 {
		body, rest, ended = b[:i], b[i+len(pasteEnd):], true
	} else if k := heldMarker(b, pasteEnd); k > 0 {
		body, g.held = b[:len(b)-k], append([]byte(nil), b[len(b)-k:]...)
	}
	g.pasteSize += len(body)
	if g.mode == pasting && g.pasteSize > g.limit {
		g.mode = dropping
		g.paste = bytes.Buffer{} // its memory goes too
		g.tell(g.lang.F("paste over the room's limit of %d bytes: refusing it…", g.limit))
	}
	if g.mode == pasting {
		g.paste.Write(body)
	}
	if !ended {
		return nil
	}
	if g.mode == pasting {
		g.out = append(append(append(g.out, pasteStart...), g.paste.Bytes()...), pasteEnd...)
	} else {
		g.tell(g.lang.F("paste refused: %d bytes, over the room's limit of %d (nothing was pasted)", g.pasteSize, g.limit))
	}
	g.paste.Reset()
	g.mode = passing
	if rest == nil {
		rest = []byte{}
	}
	return rest
}

// heldMarker is how many bytes at the end of b begin marker, when they are
// at least three ("\x1b[2"): never a key of their own, so holding them
// until the next read delays no key press. A lone esc is never held.
func heldMarker(b, marker []byte) int {
	for k := min(len(marker)-1, len(b)); k >= 3; k-- {
		if bytes.HasSuffix(b, marker[:k]) {
			return k
		}
	}
	return 0
}

func (g *inputGuard) tell(msg string) {
	if g.notice != nil {
		g.notice(msg)
	}
}

// bytesSeen is how many bytes the guard has read from the channel.
func (g *inputGuard) bytesSeen() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seen
}

// highWater is the most bytes the guard has held at once.
func (g *inputGuard) highWater() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.high
}
