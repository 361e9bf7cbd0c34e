package tools

import (
	"encoding/json"
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
type WireLog struct {
	mu      sync.Mutex
	frames  []Frame
	onFrame func(Frame)
	keep    bool
	kept    []Frame
}

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

// Add records a frame and tells the function set by SetOnFrame.
func (w *WireLog) Add(f Frame) {
	w.mu.Lock()
	w.frames = append(w.frames, f)
	if w.keep {
		w.kept = append(w.kept, f)
	}
	fn := w.onFrame
	w.mu.Unlock()
	if fn != nil {
		fn(f)
	}
}

// Drain returns the frames added since the last Drain.
func (w *WireLog) Drain() []Frame {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.frames
	w.frames = nil
	return out
}

// SetOnFrame sets the function told of every frame as it is added; it
// must not block.
func (w *WireLog) SetOnFrame(fn func(Frame)) {
	w.mu.Lock()
	w.onFrame = fn
	w.mu.Unlock()
}
