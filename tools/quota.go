package tools

import (
	"context"
	"io/fs"
	"os"
	"sync/atomic"
)

// A workspace may carry a quota (glassbox serve gives each learner's one):
// write_file refuses a write that would go past it, and the sandbox helper
// measures the workspace every quotaPoll while a command or a stdio server
// runs, stopping it once the workspace is over. The kernel enforces no
// quota on a folder of an ordinary file system, so a program can go past
// it by what it writes between two measurements; the quota bounds what a
// learner keeps, the limits (Limits) what one command may do meanwhile.

// quotaHolder holds a workspace's quota (a Workspace is otherwise
// read-only after NewWorkspace).
type quotaHolder struct{ q atomic.Pointer[Quota] }

// SetQuota caps the workspace. Call it before the first tool runs.
func (w *Workspace) SetQuota(q Quota) { w.quota.q.Store(&q) }

// Quota is the workspace's quota (no caps without SetQuota).
func (w *Workspace) Quota() Quota {
	if q := w.quota.q.Load(); q != nil {
		return *q
	}
	return Quota{}
}

// workspaceUsage measures the folder root against quota q: what it holds,
// or a *WalkLimitError once it holds more than q allows. The walk goes
// through an os.Root and follows no link.
func workspaceUsage(root string, q Quota) (WalkCount, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return WalkCount{}, err
	}
	defer r.Close()
	return Walk(context.Background(), r.FS(), ".", q.walk(), func(string, fs.DirEntry, error) error { return nil })
}
