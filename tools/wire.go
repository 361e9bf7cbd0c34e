package tools

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Frame is one JSON-RPC message between glassbox and an MCP server, as it
// passed on the wire: which server, which way, when, and the message
// itself (docs/mcp.md, "What is shown").
type Frame struct {
	Server string `json:"server"`
	// Dir is "send" (glassbox to the server) or "recv".
	Dir  string    `json:"dir"`
	Time time.Time `json:"time"`
	// Method is the request's or notification's method; a response
	// carries the method of the request it answers.
	Method string `json:"method,omitempty"`
	// Body is the message as JSON; empty when the read failed.
	Body json.RawMessage `json:"body,omitempty"`
	// Error is a message that could not be read or written: what the
	// server sent that is not JSON-RPC, or why the connection ended.
	Error string `json:"error,omitempty"`
}

// WireLog collects the frames of every MCP server a registry's tools talk
// to, in the order they pass, until the engine takes them into the step
// that was running (Drain). It is safe for concurrent use: a server's
// notifications arrive on their own goroutine.
//
// What one step keeps is bounded (MaxStepFrames, MaxStepFrameBytes), and
// so is a recording (MaxKeptFrameBytes): a server that floods the
// connection with notifications between two steps costs glassbox, the
// session and the cassette no more than that. The frames past a bound are
// counted, not kept, and the log says so with one frame of its own.
type WireLog struct {
	mu        sync.Mutex
	frames    []Frame
	bytes     int
	dropped   map[string]int // server → frames left out of this step
	onFrame   func(Frame)
	keep      bool
	kept      []Frame
	keptBytes int
	keptOver  bool
}

// The bounds of a WireLog.
const (
	// MaxStepFrames and MaxStepFrameBytes bound the frames one step keeps.
	MaxStepFrames     = 2000
	MaxStepFrameBytes = 16 << 20
	// MaxKeptFrameBytes bounds the frames a recording keeps (Keep).
	MaxKeptFrameBytes = 64 << 20
)

// Keep makes the log also keep every frame for Kept, past Drain (a run
// recording a cassette).
func (w *WireLog) Keep() {
	w.mu.Lock()
	w.keep = true
	w.mu.Unlock()
}

// Kept returns every frame added since Keep.
func (w *WireLog) Kept() []Frame {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Frame(nil), w.kept...)
}

// Add records a frame and tells the function set by SetOnFrame; a frame
// past the step's bound is only counted.
func (w *WireLog) Add(f Frame) {
	size := len(f.Body) + len(f.Error)
	w.mu.Lock()
	if len(w.frames) >= MaxStepFrames || w.bytes+size > MaxStepFrameBytes {
		if w.dropped == nil {
			w.dropped = map[string]int{}
		}
		w.dropped[f.Server]++
		w.mu.Unlock()
		return
	}
	w.frames = append(w.frames, f)
	w.bytes += size
	w.keepFrame(f, size)
	fn := w.onFrame
	w.mu.Unlock()
	if fn != nil {
		fn(f)
	}
}

// keepFrame keeps f for the recording, within its bound; w is locked.
func (w *WireLog) keepFrame(f Frame, size int) {
	switch {
	case !w.keep || w.keptOver:
	case w.keptBytes+size > MaxKeptFrameBytes:
		w.keptOver = true
		w.kept = append(w.kept, Frame{Server: f.Server, Dir: f.Dir, Time: f.Time,
			Error: fmt.Sprintf("the recording stops here: its MCP frames passed %d MiB", MaxKeptFrameBytes>>20)})
	default:
		w.kept = append(w.kept, f)
		w.keptBytes += size
	}
}

// Drain returns the frames added since the last Drain, and for each
// server whose frames went past the step's bound, a frame saying how many
// were left out.
func (w *WireLog) Drain() []Frame {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.frames
	for server, n := range w.dropped {
		out = append(out, Frame{Server: server, Dir: "recv", Time: time.Now(),
			Error: fmt.Sprintf("%d more frames were left out of this step: one step keeps at most %d frames or %d MiB (a server flooding the connection)", n, MaxStepFrames, MaxStepFrameBytes>>20)})
	}
	w.frames, w.bytes, w.dropped = nil, 0, nil
	return out
}

// SetOnFrame sets the function told of every frame as it is added; it
// must not block.
func (w *WireLog) SetOnFrame(fn func(Frame)) {
	w.mu.Lock()
	w.onFrame = fn
	w.mu.Unlock()
}
