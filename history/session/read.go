package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
)

// Limits of reading: a session file and one of its lines.
const (
	MaxFileSize = 256 << 20
	MaxLine     = 64 << 20
)

// File is a session file as read: its header, every record in order, and
// each run's present line of steps rebuilt from them.
type File struct {
	Path    string
	Header  Header
	Records []Record
	// Warnings say what reading dropped (a torn last line).
	Warnings []string
	Runs     []*RunLog

	valid        int64 // bytes of whole lines: Append cuts the file here
	unterminated bool  // the last kept line has no newline yet
}

// RunLog is one run's part of a session, with forks applied: Steps is the
// present line (a fork at step k moves the steps after k to Branches).
type RunLog struct {
	Info RunInfo
	// Submitted are the run's events in the order they were queued.
	Submitted []json.RawMessage
	Steps     []Record
	Branches  [][]Record
	// Messages is the conversation as of the last step.
	Messages []history.Message
	// Interrupted is a step that began and never ended (a crash): its
	// begin record. Nil when the last step ended.
	Interrupted *Record
	// Edit is a what-if edit made after the last step, if any; EditBase
	// and EditSystem are the messages and system prompt ("" for the
	// default) it replaced, as assembled.
	Edit       *Record
	EditBase   []history.Message
	EditSystem string
	// Answer is a person's answer to the confirmation of the step after
	// the last one, given before a crash ended it: it is not asked again.
	Answer *Record
	// System is the system prompt of the last what-if edit that changed it
	// ("" for the default).
	System string
}

// Run returns the log of the run named name ("" for a single run).
func (f *File) Run(name string) (*RunLog, bool) {
	for _, r := range f.Runs {
		if r.Info.Name == name {
			return r, true
		}
	}
	return nil, false
}

// Read reads a session file: bounded (MaxFileSize, MaxLine), a torn last
// line dropped with a warning, a corrupt line or a file from a newer
// glassbox refused with an error that says so. Reading never writes.
func Read(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, sentence.Errorf("%s is not a regular file", path)
	}
	if st.Size() > MaxFileSize {
		return nil, sentence.Errorf("%w: %s is %d MiB; glassbox reads session files up to %d MiB", ErrTooLarge, path, st.Size()>>20, MaxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	return parse(path, data)
}

func parse(path string, data []byte) (*File, error) {
	f := &File{Path: path}
	var off int64
	for n := 1; len(data) > 0; n++ {
		line, rest, terminated := bytes.Cut(data, []byte("\n"))
		if len(line) > MaxLine {
			return nil, sentence.Errorf("%w: line %d of %s is %d MiB; a line may be at most %d MiB", ErrTooLarge, n, path, len(line)>>20, MaxLine>>20)
		}
		last := len(rest) == 0
		if err := f.line(n, line); err != nil {
			if last && n > 1 && !errors.Is(err, ErrNewerFormat) {
				f.Warnings = append(f.Warnings, fmt.Sprintf("%s: the last line (%d) was cut off, probably by a crash; it is dropped (%v)", path, n, err))
				break
			}
			return nil, err
		}
		off += int64(len(line))
		if terminated {
			off++
		} else {
			f.unterminated = true
		}
		f.valid = off
		data = rest
	}
	if f.Header.Kind == "" {
		return nil, sentence.Errorf("%w: %s is empty; it is not a glassbox session file", ErrCorrupt, path)
	}
	if err := f.rebuild(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	}
	return f, nil
}

func (f *File) line(n int, line []byte) error {
	if n == 1 {
		var h Header
		if err := json.Unmarshal(line, &h); err != nil || h.Kind != KindHeader {
			return sentence.Errorf("%w: %s does not start with a glassbox session header", ErrCorrupt, f.Path)
		}
		if h.Format > Format {
			return sentence.Errorf("%w: %s has format %d (glassbox %s), this glassbox reads format %d and older; use a newer glassbox. The file is left untouched", ErrNewerFormat, f.Path, h.Format, h.Glassbox, Format)
		}
		if h.Format < 1 || len(h.Runs) == 0 {
			return sentence.Errorf("%w: %s has a header without a format or runs", ErrCorrupt, f.Path)
		}
		f.Header = h
		return nil
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return sentence.Errorf("%w: line %d of %s is not JSON (%v); the file is left untouched", ErrCorrupt, n, f.Path, err)
	}
	switch r.Kind {
	case KindSubmit, KindBegin, KindStep, KindFork, KindEdit, KindAnswer:
	default:
		return sentence.Errorf("%w: line %d of %s has an unknown kind %q", ErrCorrupt, n, f.Path, r.Kind)
	}
	f.Records = append(f.Records, r)
	return nil
}

// rebuild replays the records into each run's present line.
func (f *File) rebuild() error {
	for _, info := range f.Header.Runs {
		f.Runs = append(f.Runs, &RunLog{Info: info})
	}
	for i, r := range f.Records {
		rl, ok := f.Run(r.Run)
		if !ok {
			return sentence.Errorf("record %d names a run %q the header does not list", i+2, r.Run)
		}
		if err := rl.apply(r, i+2); err != nil {
			return err
		}
	}
	return nil
}

// apply replays record r, the file's record n, into the run.
func (rl *RunLog) apply(r Record, n int) error {
	switch r.Kind {
	case KindSubmit:
		if r.N != len(rl.Submitted)+1 {
			return sentence.Errorf("record %d: event %d submitted after %d events", n, r.N, len(rl.Submitted))
		}
		rl.Submitted = append(rl.Submitted, r.Event)
	case KindBegin:
		rl.Interrupted = &r
	case KindAnswer:
		rl.Answer = &r
	case KindStep:
		return rl.step(r, n)
	case KindFork:
		return rl.fork(r, n)
	case KindEdit:
		if rl.Edit == nil {
			rl.EditBase, rl.EditSystem = slices.Clip(rl.Messages), rl.System
		}
		rl.Messages = slices.Clone(r.Messages)
		rl.Edit = &r
		if r.System != "" {
			rl.System = r.System
		}
	}
	return nil
}

// step appends step r (record n): its messages, which must add up to its
// length. A step ends any interruption, edit or answer before it.
func (rl *RunLog) step(r Record, n int) error {
	if want := len(rl.Steps) + 1; r.Seq != want {
		return sentence.Errorf("record %d: step %d follows step %d", n, r.Seq, want-1)
	}
	rl.Messages = append(rl.Messages, r.Added...)
	if r.Len != len(rl.Messages) {
		return sentence.Errorf("record %d: step %d leaves %d messages, the records add up to %d", n, r.Seq, r.Len, len(rl.Messages))
	}
	rl.Steps = append(rl.Steps, r)
	rl.Interrupted, rl.Edit, rl.EditBase, rl.Answer = nil, nil, nil, nil
	return nil
}

// fork goes back to step r.Seq (record n): the steps after it become a
// branch, the messages and events are cut back to what it kept, and a
// fork onto another dialect changes the run's provider.
func (rl *RunLog) fork(r Record, n int) error {
	if r.Seq < 0 || r.Seq > len(rl.Steps) {
		return sentence.Errorf("record %d: a fork from step %d of %d", n, r.Seq, len(rl.Steps))
	}
	keep := 0
	if r.Seq > 0 {
		keep = rl.Steps[r.Seq-1].Len
	}
	if r.Seq < len(rl.Steps) {
		rl.Branches = append(rl.Branches, slices.Clone(rl.Steps[r.Seq:]))
	}
	rl.Steps = rl.Steps[:r.Seq]
	rl.Messages = append(slices.Clip(rl.Messages[:keep]), r.Added...)
	rl.foldForkAdded(r)
	if r.N > len(rl.Submitted) {
		return sentence.Errorf("record %d: a fork keeps %d events of %d", n, r.N, len(rl.Submitted))
	}
	rl.Submitted = rl.Submitted[:r.N]
	if r.Provider != "" {
		rl.Info.Provider, rl.Info.ToolMode, rl.Info.Model = r.Provider, r.ToolMode, r.Model
		rl.Messages = StripNative(rl.Messages, NativeName(r.Provider, r.ToolMode))
	}
	rl.Interrupted, rl.Edit, rl.EditBase, rl.Answer = nil, nil, nil, nil
	return nil
}

// foldForkAdded puts what fork r added (the note on what could not carry
// over to another dialect) into the step it was made at, as the engine
// does: a later fork to that step keeps it, and the steps read back add up
// to the messages.
func (rl *RunLog) foldForkAdded(r Record) {
	if r.Seq == 0 || len(r.Added) == 0 {
		return
	}
	st := &rl.Steps[r.Seq-1]
	st.Added = append(slices.Clip(st.Added), r.Added...)
	st.Len = len(rl.Messages)
}

// Summary is one line of `glassbox sessions`.
type Summary struct {
	ID      string
	Path    string
	Started time.Time
	// Runs are each run's provider and tool mode (the dialect's name is
	// for providers/backend to say).
	Runs      []RunDialect
	Request   string
	Steps     int
	LastState string
	// Err is set when the file could not be read; the other fields are
	// then empty but ID and Path.
	Err error
}

// List reads every session file (*.jsonl) in dir, oldest first. A missing
// dir is no error: there are no sessions yet.
func List(dir string) ([]Summary, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".jsonl" {
			continue
		}
		path := filepath.Join(dir, e.Name())
		out = append(out, Summarize(path))
	}
	slices.SortStableFunc(out, func(a, b Summary) int { return a.Started.Compare(b.Started) })
	return out, nil
}

// Summarize reads one session file into its summary.
func Summarize(path string) Summary {
	s := Summary{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Path: path}
	f, err := Read(path)
	if err != nil {
		s.Err = err
		return s
	}
	s.Started, s.Request = f.Header.Started, f.Header.Request
	if s.Request == "" && len(f.Runs[0].Submitted) > 0 {
		var ev struct {
			Data string `json:"data"`
		}
		if json.Unmarshal(f.Runs[0].Submitted[0], &ev) == nil {
			s.Request = ev.Data
		}
	}
	var states []string
	for _, rl := range f.Runs {
		s.Runs = append(s.Runs, RunDialect{rl.Info.Provider, rl.Info.ToolMode})
		s.Steps = max(s.Steps, len(rl.Steps))
		state := "WAITING_FOR_EVENT"
		if n := len(rl.Steps); n > 0 {
			var t struct {
				To string `json:"to"`
			}
			if json.Unmarshal(rl.Steps[n-1].Trace, &t) == nil && t.To != "" {
				state = t.To
			}
		}
		if rl.Interrupted != nil {
			state += " (interrupted)"
		}
		states = append(states, state)
	}
	s.LastState = strings.Join(states, ",")
	return s
}

// NativeName is the history.Native provider name a dialect replays
// unchanged: the provider's name, with its tool mode when it has several
// ("llama-native"). Each provider package names its replies by this rule.
func NativeName(provider, toolMode string) string {
	if toolMode == "" {
		return provider
	}
	return provider + "-" + toolMode
}

// StripNative returns msgs with every native encoding other than keep's
// dropped (a copy when anything is dropped): after a fork onto another
// dialect, what the new provider cannot read is gone, not carried along.
func StripNative(msgs []history.Message, keep string) []history.Message {
	out := msgs
	copied := false
	for i, m := range msgs {
		if m.Native == nil || m.Native.Provider == keep {
			continue
		}
		if !copied {
			out, copied = slices.Clone(msgs), true
		}
		out[i].Native = nil
	}
	return out
}

// RunDialect is a run's provider and tool mode as the session records them.
type RunDialect struct{ Provider, ToolMode string }
