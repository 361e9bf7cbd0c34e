package glassbox

import (
	"strings"
	"testing"
)

// The status bar says whether commands run under the kernel's sandbox, and
// the welcome note says why when they do not.
func TestStatusBarSaysWhetherTheSandboxIsOn(t *testing.T) {
	for _, tc := range []struct{ status, bar, note string }{
		{"on — Landlock ABI 7: commands write only in the workspace", "sandbox on", "Sandbox for commands: on — Landlock ABI 7\n"},
		{"off — this kernel has no Landlock", "sandbox off", "Sandbox for commands: off — this kernel has no Landlock"},
		// Issue 19: what the kernel or the policy leaves open is in the head,
		// so the status bar shows it.
		{"on (open: TCP, UDP) — Landlock ABI 7 + seccomp: commands write only in the workspace", "sandbox on (open: TCP, UDP)", "Sandbox for commands: on (open"},
	} {
		w := newWorld(t)
		cfg := w.config()
		cfg.Sandbox = tc.status
		h := newHarness(t, cfg, 200, 48)
		v := h.plainView()
		contains(t, v, tc.bar)
		contains(t, v, strings.TrimSuffix(tc.note, "\n"))
		notContains(t, v, "write only in the workspace")
	}
}

// Issue 28: the welcome names every limit in force (and a served
// learner's quota) beside what confines the commands; the rest of the
// line stays in the trace.
func TestWelcomeNamesTheLimitsInForce(t *testing.T) {
	w := newWorld(t)
	cfg := w.config()
	cfg.Sandbox = "on — Landlock ABI 7 + seccomp + read-only mounts + PID namespace: commands read only the workspace; they see only their own processes; limits: 256 processes (cgroup v1 pids.max), 1 GiB of memory (cgroup v1 memory.limit_in_bytes), 256 MiB a file, 20 s of CPU a process, no core files (rlimits); workspace quota: 128 MiB and 10,000 entries (checked every 250ms while a program runs); nothing left open"
	h := newHarness(t, cfg, 200, 48)
	text := h.m.lessons.welcomeText(h.m.runs[0])
	for _, want := range []string{"Sandbox for commands: on — Landlock ABI 7 + seccomp + read-only mounts + PID namespace; limits: 256 processes (cgroup v1 pids.max), 1 GiB of memory", "no core files (rlimits); workspace quota: 128 MiB and 10,000 entries"} {
		if !strings.Contains(text, want) {
			t.Errorf("the welcome lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "nothing left open") || strings.Contains(text, "commands read only the workspace") {
		t.Errorf("the welcome repeats the whole line:\n%s", text)
	}
}
