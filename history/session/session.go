// Package session is glassbox's session file: an append-only JSONL file
// that keeps a run (or the two runs of compare mode) on disk, one line per
// transition, flushed as each transition ends, so a session survives quit
// and crash. Beside it, a folder holds the raw HTTP exchanges (read back one
// step at a time), the content-addressed copies of workspace files that let
// a fork put the files back, and, when glassbox made it, the workspace.
//
// The package knows the file's layout, not the engine: transition records
// and engine checkpoints are carried as raw JSON that loop encodes and
// decodes.
package session

import (
	"encoding/json"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
)

// Format is the version of the file layout this glassbox writes. A file
// with a larger format is refused (never overwritten): it was written by a
// newer glassbox.
const Format = 1

// Record kinds: the "kind" of each line.
const (
	KindHeader = "header" // the first line
	KindSubmit = "submit" // an event entered the queue (nothing typed is lost)
	KindBegin  = "begin"  // a step that acts on the world started
	KindStep   = "step"   // a transition ended
	KindFork   = "fork"   // the run continues from an earlier step
	KindEdit   = "edit"   // the context about to be sent was replaced (what-if)
	KindAnswer = "answer" // a person answered a confirmation (before the step ends)
)

// Header is the first line of a session file.
type Header struct {
	Kind     string    `json:"kind"`
	Format   int       `json:"format"`
	Glassbox string    `json:"glassbox"` // the version that started it
	Started  time.Time `json:"started"`
	// Request is the first thing the person asked, for `glassbox sessions`.
	Request string    `json:"request,omitempty"`
	Runs    []RunInfo `json:"runs"`
}

// RunInfo is how one run was started; resuming builds the same run again.
type RunInfo struct {
	// Name is the run's name in compare mode (its dialect's name),
	// empty for a single run. Every record of the run carries it.
	Name     string `json:"name,omitempty"`
	Provider string `json:"provider"`
	ToolMode string `json:"tool_mode,omitempty"`
	Model    string `json:"model,omitempty"`
	Backend  string `json:"backend"` // live, offline or replay
	Lesson   string `json:"lesson,omitempty"`
	// Workspace is the folder the run's tools touch. Kept means glassbox made
	// it inside the session's folder and keeps it with the session.
	Workspace     string `json:"workspace"`
	Kept          bool   `json:"workspace_kept,omitempty"`
	MaxIterations int    `json:"max_iterations"`
	Policy        string `json:"policy,omitempty"` // --policy FILE, if any
	Replay        string `json:"replay,omitempty"` // --replay FILE, if any
}

// Record is any line after the header. Which fields are set depends on
// Kind; Run names the run it belongs to (empty for a single run).
type Record struct {
	Kind string `json:"kind"`
	Run  string `json:"run,omitempty"`
	Seq  int    `json:"seq,omitempty"`

	// submit: the event, and its number among the run's submitted events.
	Event json.RawMessage `json:"event,omitempty"`
	N     int             `json:"n,omitempty"`

	// begin: the state the step starts from, and for a tool that may
	// change files, the manifest of the workspace before it ran.
	State    string `json:"state,omitempty"`
	Manifest string `json:"manifest,omitempty"`

	// step: the trace record, the messages the transition added, the
	// engine's checkpoint after it, where its exchanges are, and the
	// files it changed.
	Trace      json.RawMessage   `json:"trace,omitempty"`
	Added      []history.Message `json:"added,omitempty"`
	Checkpoint json.RawMessage   `json:"checkpoint,omitempty"`
	Exchanges  *Span             `json:"exchanges,omitempty"`
	Changes    *Changes          `json:"changes,omitempty"`
	Parse      json.RawMessage   `json:"parse,omitempty"`
	// Len is the length of the run's history after the record (step,
	// fork): the check that the messages read back are the engine's.
	Len int `json:"history_len,omitempty"`

	// fork: the step the run goes back to (Seq), and the provider it
	// continues with; a note says what could not carry over.
	Provider string `json:"provider,omitempty"`
	ToolMode string `json:"tool_mode,omitempty"`
	Model    string `json:"model,omitempty"`
	Note     string `json:"note,omitempty"`

	// answer: the person's approval (0 deny, 1 allow once, 2 allow this
	// exact call for the session) for the step Seq, or their Answer to a
	// question ask_user put in the step under way.
	Approval *int   `json:"approval,omitempty"`
	Answer   string `json:"answer,omitempty"`

	// edit: the context that replaced the assembled one (what-if).
	System   string            `json:"system,omitempty"`
	Messages []history.Message `json:"messages,omitempty"`

	// Seal vouches for a step's checkpoint or an answer's approval: made
	// with this user's key (guard.go), it says the person's approvals in
	// them are theirs. A record without a valid seal is trusted for
	// nothing but what it shows.
	Seal string `json:"seal,omitempty"`
}

// Span is where a step's exchanges are in the exchanges file.
type Span struct {
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
}

// Changes is what one step did to the workspace: each changed file with
// its content before and after (blob hashes; "" means absent). Unrestorable
// says why the step's changes could not be recorded (the workspace is past
// the size limit): a fork across it cannot put the files back.
type Changes struct {
	Files        []FileChange `json:"files,omitempty"`
	Unrestorable string       `json:"unrestorable,omitempty"`
}

// FileChange is one file a step created, changed or removed — or, with
// Dir, a folder it created (After "dir") or removed (Before "dir").
type FileChange struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Mode   uint32 `json:"mode,omitempty"` // the mode before (0: absent)
	Dir    bool   `json:"dir,omitempty"`
}

// Sentinel errors of reading.
var (
	// ErrNewerFormat: the file was written by a newer glassbox.
	ErrNewerFormat = sentence.Errorf("the session file was written by a newer glassbox")
	// ErrCorrupt: the file is not a session file, or a line other than the
	// last cannot be read.
	ErrCorrupt = sentence.Errorf("the session file is corrupt")
	// ErrTooLarge: the file is past the size glassbox reads.
	ErrTooLarge = sentence.Errorf("the session file is too large")
)
