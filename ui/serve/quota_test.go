package serve

import (
	"context"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Issue 28: under serve each learner's workspace has a disk and entry
// quota; its commands and writes keep within it, and the sandbox line
// names it (tools' TestQuotaStopsACommand, TestWriteFileKeepsToTheQuota:
// this test binary runs no sandbox helper).
func TestEachLearnersWorkspaceHasAQuota(t *testing.T) {
	r := newRoom(t, Options{})
	l, err := r.srv.open(context.Background(), learnerID("user", "ada"), "127.0.0.1", lang.EN)
	if err != nil {
		t.Fatal(err)
	}
	defer agentrun.CloseAll(l.runs)
	if q := l.runs[0].Workspace.Quota(); q != learnerQuota() || q.Bytes != 128<<20 || q.Entries != 10_000 {
		t.Errorf("quota %+v", q)
	}
	if c := l.runs[0].Config.Quota; c != learnerQuota() {
		t.Errorf("the learner's run config has quota %+v", c)
	}
}
