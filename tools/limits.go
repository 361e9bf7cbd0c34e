package tools

import (
	"fmt"
	"strings"
	"time"
)

// Limits are what one command (or one stdio server) may use of the
// machine: set by the confining stage and the helper on every program they
// run, and named on the sandbox line. They are chosen so a lesson never
// meets them (a lesson's command runs a few processes, a few megabytes, for
// a second or two) while one learner's command cannot take the room's
// machine: the 400 processes, 2 GiB of memory and 1 GiB file of issue 28
// each stop at their limit.
type Limits struct {
	// Processes caps the processes and threads running at once, counted
	// by the kernel for this program alone (a cgroup's pids.max, or
	// RLIMIT_NPROC in a user namespace of its own).
	Processes int
	// Memory caps the memory the program and everything it started use
	// together (a cgroup's memory limit), or, without a cgroup, each
	// process's data: its heap and private mappings (RLIMIT_DATA).
	Memory int64
	// FileSize caps the size of any one file it writes (RLIMIT_FSIZE).
	FileSize int64
	// CPU caps the processor time of each of its processes (RLIMIT_CPU).
	CPU time.Duration
}

// CommandLimits are the limits of every command execute_command runs. A
// command runs for at most DefaultCommandTimeout; its CPU limit stops one
// that only burns the processor before that.
func CommandLimits() Limits {
	return Limits{Processes: 256, Memory: 1 << 30, FileSize: 256 << 20, CPU: 20 * time.Second}
}

// ServerLimits are the limits of a stdio MCP server: a command's, but with
// the processor time of a server that answers calls for a whole session.
func ServerLimits() Limits {
	return Limits{Processes: 256, Memory: 1 << 30, FileSize: 256 << 20, CPU: 10 * time.Minute}
}

// Quota caps a workspace (glassbox serve sets one per learner): its files'
// bytes and its entries — files, folders, links and every other kind
// count alike. Zero fields mean no cap.
type Quota struct {
	Bytes   int64 `json:"bytes,omitempty"`
	Entries int   `json:"entries,omitempty"`
}

// Set reports whether the quota caps anything.
func (q Quota) Set() bool { return q.Bytes > 0 || q.Entries > 0 }

// Walk is the walk limit a quota gives: one entry and one byte more than
// it allows, so a walk that stops at it proves the quota exceeded.
func (q Quota) walk() WalkLimits {
	return WalkLimits{Entries: q.Entries, Bytes: q.Bytes}
}

// String names the quota as the sandbox line and a failure say it.
func (q Quota) String() string {
	var parts []string
	if q.Bytes > 0 {
		parts = append(parts, sizeWords(q.Bytes))
	}
	if q.Entries > 0 {
		parts = append(parts, countWords(q.Entries, "entry", "entries"))
	}
	return strings.Join(parts, " and ")
}

// sizeWords is a size in the largest whole unit: "256 MiB", "1 GiB".
func sizeWords(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// countWords is "1 entry", "10,000 entries".
func countWords(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return groupDigits(n) + " " + many
}

// groupDigits writes n with a comma every three digits.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// limitsWords names the limits in force for the sandbox line, each with
// the mechanism that enforces it: "256 processes (cgroup pids.max), 1 GiB
// of memory (cgroup), 256 MiB a file, 60 s of CPU a process, no core files
// (rlimits)". byCgroup says which of processes and memory a cgroup holds;
// nproc says RLIMIT_NPROC holds the processes instead.
func limitsWords(l Limits, m limitMechanisms) string {
	var parts []string
	switch {
	case m.pidsCgroup != "":
		parts = append(parts, fmt.Sprintf("%d processes (%s)", l.Processes, m.pidsCgroup))
	case m.nproc:
		parts = append(parts, fmt.Sprintf("%d processes (RLIMIT_NPROC in its own user namespace)", l.Processes))
	}
	if m.memoryCgroup != "" {
		parts = append(parts, fmt.Sprintf("%s of memory (%s)", sizeWords(l.Memory), m.memoryCgroup))
	} else {
		parts = append(parts, fmt.Sprintf("%s of data a process (RLIMIT_DATA)", sizeWords(l.Memory)))
	}
	parts = append(parts, fmt.Sprintf("%s a file, %s of CPU a process, no core files (rlimits)", sizeWords(l.FileSize), cpuWords(l.CPU)))
	return strings.Join(parts, ", ")
}

// cpuWords is a processor time as the line says it: "60 s", "10 min".
func cpuWords(d time.Duration) string {
	if d >= 2*time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", int(d/time.Minute))
	}
	return fmt.Sprintf("%d s", int(d/time.Second))
}

// limitMechanisms say how the limits that need more than an rlimit are
// held: the cgroup (and its version) holding processes and memory, or
// RLIMIT_NPROC.
type limitMechanisms struct {
	pidsCgroup, memoryCgroup string // "cgroup v1 pids.max", "cgroup v2 memory.max", or ""
	nproc                    bool
	// why says why the processes are not limited, when they are not.
	why string
}

// SIGXCPU and SIGXFSZ on Linux and the BSDs, as a shell reports a child
// they ended (exit code 128+N).
const (
	sigXCPU = 24
	sigXFSZ = 25
)

// limitHit names the limit that stopped a program, from how it ended and
// what it printed: a process killed by SIGXFSZ or SIGXCPU (or a shell
// reporting one with 128+N), a program told "File too large" (Python
// ignores SIGXFSZ and gets EFBIG instead). The cgroup's own counters
// (processes refused, memory killed) are read by the helper.
func limitHit(l Limits, signal string, exit int, output string) string {
	switch {
	case signal == "file size limit exceeded", exit == 128+sigXFSZ,
		strings.Contains(output, "File size limit exceeded"), strings.Contains(output, "File too large"):
		return fileSizeLimit(l)
	case signal == "CPU time limit exceeded", exit == 128+sigXCPU,
		strings.Contains(output, "CPU time limit exceeded"):
		return cpuLimit(l)
	}
	return ""
}

func fileSizeLimit(l Limits) string {
	return fmt.Sprintf("the file size limit (%s a file)", sizeWords(l.FileSize))
}

func cpuLimit(l Limits) string {
	return fmt.Sprintf("the CPU time limit (%s a process)", cpuWords(l.CPU))
}

func processLimit(l Limits) string {
	return fmt.Sprintf("the process limit (%d processes and threads at once)", l.Processes)
}

func memoryLimit(l Limits) string {
	return fmt.Sprintf("the memory limit (%s)", sizeWords(l.Memory))
}

func quotaLimit(q Quota, why string) string {
	return fmt.Sprintf("the workspace quota (%s; %s)", q, why)
}

// limitNote is what the model reads under a result a limit stopped.
func limitNote(limit string) string {
	return "[limit] This command reached " + limit + ": what went past it was refused or stopped. The limits keep one command from taking the machine, and a lesson never needs as much: do less at once."
}
