package telemetry

import (
	"sync"
	"sync/atomic"
)

// Reason says why spans were dropped. Each is a sentence a front end
// shows, through its message catalog (ui/lang has every one in Japanese).
type Reason string

const (
	// ReasonRefused: nothing listens at the endpoint.
	ReasonRefused Reason = "the collector refused the connection"
	// ReasonTimeout: the collector took the connection and did not answer
	// within the export deadline.
	ReasonTimeout Reason = "the collector did not answer in time"
	// ReasonUnreachable: the collector's host could not be found or reached.
	ReasonUnreachable Reason = "the collector could not be reached"
	// ReasonRejected: the collector answered with an HTTP error (Drop.Detail
	// says which).
	ReasonRejected Reason = "the collector answered with an error"
	// ReasonFailed: the export failed another way.
	ReasonFailed Reason = "the export failed"
	// ReasonQueueFull: spans ended faster than the collector took them and
	// the queue was full.
	ReasonQueueFull Reason = "the queue to the collector was full"
	// ReasonBehind: transitions came faster than spans could be made from
	// them; the count is of transitions.
	ReasonBehind Reason = "glassbox fell behind making spans"
	// ReasonExit: glassbox ended before the collector took them.
	ReasonExit Reason = "glassbox ended before the collector took them"
)

// Short is the reason in a word or two, for a status bar: "refused",
// "timeout", "queue full".
func (r Reason) Short() string { return shortReasons[r] }

var shortReasons = map[Reason]string{
	ReasonRefused: "refused", ReasonTimeout: "timeout", ReasonUnreachable: "unreachable", ReasonRejected: "rejected",
	ReasonFailed: "failed", ReasonQueueFull: "queue full", ReasonBehind: "behind", ReasonExit: "at exit",
}

// Reasons are every Reason, in the order Stats lists them.
var Reasons = []Reason{ReasonRefused, ReasonTimeout, ReasonUnreachable, ReasonRejected, ReasonFailed, ReasonQueueFull, ReasonBehind, ReasonExit}

// Stats are an exporter's counts so far.
type Stats struct {
	// Endpoint is where the spans go (without its query).
	Endpoint string
	// Sent spans were taken by the collector.
	Sent int64
	// Pending spans are queued or in a request still waiting.
	Pending int64
	// Dropped lists the spans lost, by reason, in Reasons' order; only
	// reasons that dropped some.
	Dropped []Drop
}

// Drop is how many were lost for one reason.
type Drop struct {
	Reason Reason
	Count  int64
	// Detail adds what the reason alone does not say ("HTTP 401").
	Detail string
}

// DroppedTotal is the sum of Dropped.
func (s Stats) DroppedTotal() int64 {
	var n int64
	for _, d := range s.Dropped {
		n += d.Count
	}
	return n
}

// counters are the live numbers behind Stats.
type counters struct {
	endpoint string
	sent     atomic.Int64
	queued   atomic.Int64

	mu      sync.Mutex
	dropped map[Reason]int64
	detail  map[Reason]string
}

func (c *counters) drop(r Reason, n int64, detail string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropped == nil {
		c.dropped, c.detail = map[Reason]int64{}, map[Reason]string{}
	}
	c.dropped[r] += n
	if detail != "" {
		c.detail[r] = detail
	}
}

func (c *counters) snapshot() Stats {
	s := Stats{Endpoint: c.endpoint, Sent: c.sent.Load(), Pending: max(c.queued.Load(), 0)}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range Reasons {
		if n := c.dropped[r]; n > 0 {
			s.Dropped = append(s.Dropped, Drop{Reason: r, Count: n, Detail: c.detail[r]})
		}
	}
	return s
}
