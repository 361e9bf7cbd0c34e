package loop

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
)

// Health is a run's health, after the original's performance monitor: how
// big its session is on disk, how many model calls it made and how many of
// them were retried, which failures went back to the model so it could
// repair itself (RECORDING_ERROR entries, by kind), how long a call took
// (median and worst) and the tokens it spent. It is computed from the
// transitions alone, so a live run and a session read back agree.
type Health struct {
	Bytes    int64 // the session file and its folder of exchanges and file copies (not a kept workspace)
	Calls    int   // model calls (each counts once, however many attempts it took)
	Retries  int   // attempts that failed and were tried again
	Failures map[string]int
	P50, Max time.Duration // time per call, every attempt and wait included
	In, Out  int           // tokens in and out, as the providers reported them

	times []time.Duration // every call's time, sorted: P50 and Max come from here
}

// HealthOf adds up the transitions of one or more runs. Bytes is left for
// the caller (SessionHealth measures it on disk).
func HealthOf(ts []Transition) Health {
	var h Health
	for _, t := range ts {
		h.Add(t)
	}
	return h
}

// Add counts one more transition: a screen that keeps a run's health up to
// date adds each transition as it arrives instead of adding them all up
// again.
func (h *Health) Add(t Transition) {
	if t.LLM != nil {
		h.Calls++
		h.Retries += len(t.LLM.Retries)
		h.In += t.LLM.Usage.InputTokens
		h.Out += t.LLM.Usage.OutputTokens
		d := time.Duration(max(t.LLM.TotalMS, t.LLM.LatencyMS)) * time.Millisecond
		i, _ := slices.BinarySearch(h.times, d)
		h.times = slices.Insert(h.times, i, d)
		h.P50, h.Max = h.times[(len(h.times)-1)/2], h.times[len(h.times)-1]
	}
	if t.To == RecordingError && t.Error != nil {
		if h.Failures == nil {
			h.Failures = map[string]int{}
		}
		h.Failures[t.Error.Kind]++
	}
}

// FedBack is the number of failures fed back to the model.
func (h Health) FedBack() int {
	n := 0
	for _, c := range h.Failures {
		n += c
	}
	return n
}

// String is the health on one line:
// "12 calls · 2 retries · 1 failure fed back · p50 1.2 s · max 3.4 s · tokens 9120→388 · 48 KB".
func (h Health) String() string { return h.StringIn(English) }

// StringIn is String said with say (a front end's language).
func (h Health) StringIn(say Say) string {
	fed := h.FedBack()
	parts := []string{
		plural(h.Calls, say("%d call", h.Calls), say("%d calls", h.Calls)),
		plural(h.Retries, say("%d retry", h.Retries), say("%d retries", h.Retries)),
		plural(fed, say("%d failure fed back", fed), say("%d failures fed back", fed)),
	}
	if h.Calls > 0 {
		parts = append(parts, h.CallTimes())
	}
	parts = append(parts, say("tokens %d→%d", h.In, h.Out))
	if h.Bytes > 0 {
		parts = append(parts, size(h.Bytes))
	}
	return strings.Join(parts, " · ")
}

// CallTimes is the median and worst time per call, "p50 1.2 s · max 3.4 s".
func (h Health) CallTimes() string { return "p50 " + seconds(h.P50) + " · max " + seconds(h.Max) }

// FailureKinds is the failures by kind, "policy_denied 2, tool_failure 1"
// (sorted by kind), or "" when there were none.
func (h Health) FailureKinds() string {
	kinds := make([]string, 0, len(h.Failures))
	for k := range h.Failures {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for i, k := range kinds {
		kinds[i] = fmt.Sprintf("%s %d", k, h.Failures[k])
	}
	return strings.Join(kinds, ", ")
}

// seconds is a duration as the health line shows it: "0.8 s", "12 s",
// or milliseconds under a tenth of a second ("3 ms").
func seconds(d time.Duration) string {
	switch {
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f s", d.Seconds())
}

// size is a byte count in B, KB or MB (1 KB = 1024 bytes), rounded.
func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// SessionHealth reads a session file and returns the health of every run in
// it together (a comparison's two runs add up), and its size on disk: the
// file, its exchanges and its file copies. A kept workspace is the
// learner's project, not the session's weight, and is not counted.
func SessionHealth(path string) (Health, error) {
	f, err := session.Read(path)
	if err != nil {
		return Health{}, err
	}
	var all []Transition
	for _, rl := range f.Runs {
		ts, err := SessionTransitions(path, rl, false)
		if err != nil {
			return Health{}, err
		}
		all = append(all, ts...)
	}
	h := HealthOf(all)
	h.Bytes, err = SessionBytes(path)
	return h, err
}

// SessionBytes is the size of a session on disk: the file, and beside it
// the exchanges and the blobs (file copies). A missing folder counts zero.
func SessionBytes(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	n := st.Size()
	if st, err := os.Lstat(session.ExchangesFile(path)); err == nil && st.Mode().IsRegular() {
		n += st.Size()
	}
	blobs := filepath.Join(session.DataDir(path), "blobs")
	err = filepath.WalkDir(blobs, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return n, fmt.Errorf("measuring %s: %w", blobs, err)
	}
	return n, nil
}
