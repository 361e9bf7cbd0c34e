package ui

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
