package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/har"
)

// HAR is --format har: every HTTP exchange of a session or a cassette as
// one HAR 1.2 file, for a browser's network panel (docs/standards.md).
const HAR Format = "har"

// writeHAR writes the exchanges of the session or cassette at path as HAR:
// the model calls of every step (of step opt.Step alone when set), each at
// the moment its request was sent, masked once more with opt.Secrets.
func writeHAR(w io.Writer, path string, opt Options, version string) error {
	mask := providers.NewMasker(opt.Secrets...)
	hw := har.NewWriter(w, version)
	cassette, err := isCassette(path)
	if err != nil {
		return err
	}
	if cassette {
		if opt.Step > 0 {
			return sentence.Errorf("--step: a cassette has no steps; export it whole")
		}
		err = cassetteHAR(hw, path, mask)
	} else {
		err = sessionHAR(hw, path, opt.Step, mask)
	}
	if err != nil {
		return err
	}
	return hw.Close()
}

// isCassette tells a cassette (its first line a cassette header) from a
// session file.
func isCassette(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 64<<10)).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return false, err
	}
	var probe map[string]json.RawMessage
	return json.Unmarshal(bytes.TrimSpace(line), &probe) == nil && probe["glassbox_cassette"] != nil, nil
}

// sessionHAR writes each step's exchanges. A step's model call began when
// the step before it ended (context_ready); each attempt took its Total,
// then the retry's wait.
func sessionHAR(hw *har.Writer, path string, step int, mask *providers.Masker) error {
	f, err := session.Read(path)
	if err != nil {
		return err
	}
	steps := 0
	for _, rl := range f.Runs {
		steps = max(steps, len(rl.Steps))
	}
	if step > steps {
		return sentence.Errorf("%w: step %d; %s has %d steps", ErrStep, step, path, steps)
	}
	for _, rl := range f.Runs {
		ts, err := loop.SessionTransitions(path, rl, false)
		if err != nil {
			return err
		}
		reader := loop.NewExchangeReader(path, 0)
		for i, st := range rl.Steps {
			if step > 0 && i+1 != step {
				continue
			}
			xs, err := reader.Load(st)
			if err != nil {
				return err
			}
			if len(xs) == 0 {
				continue
			}
			t := ts[i]
			at := callStart(ts, i)
			for k, x := range xs {
				m := har.Meta{Started: at, Kind: har.KindModel, Run: rl.Info.Name, Step: t.Seq, Iteration: t.Iteration}
				if err := hw.Add(mask.Exchange(x), m); err != nil {
					return err
				}
				at = at.Add(x.Total)
				if t.LLM != nil && k < len(t.LLM.Retries) {
					at = at.Add(time.Duration(t.LLM.Retries[k].WaitMS) * time.Millisecond)
				}
			}
		}
	}
	return nil
}

// callStart is when the model call of step i went out: when the step
// before it ended, else its whole call's length before it ended.
func callStart(ts []loop.Transition, i int) time.Time {
	t := ts[i]
	if i > 0 && !ts[i-1].Time.After(t.Time) {
		return ts[i-1].Time
	}
	if t.LLM != nil {
		return t.Time.Add(-time.Duration(t.LLM.TotalMS) * time.Millisecond)
	}
	return t.Time
}

// cassetteHAR writes a cassette's exchanges. A cassette keeps how long
// each exchange took, not when it began: they are laid one after another
// from the recording's start.
func cassetteHAR(hw *har.Writer, path string, mask *providers.Masker) error {
	c, err := providers.LoadCassette(path)
	if err != nil {
		return err
	}
	at := c.Header.RecordedAt
	for _, x := range c.Exchanges {
		if err := hw.Add(mask.Exchange(x), har.Meta{Started: at, Kind: har.KindModel}); err != nil {
			return err
		}
		at = at.Add(x.Total)
	}
	return nil
}
