package serve

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// A room is offline by default, and the instructor's glass box says so in
// those words, never "--offline", a flag they did not pass (issue 29,
// item 3: an instructor read "offline: --offline").
func TestARoomSaysWhyItIsOffline(t *testing.T) {
	state := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	var o Options
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	BindFlags(fs, &o, lang.EN)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	c := agentrun.Config{Provider: "gemini"}
	if err := Configure(&o, c, fs, nil, getenv); err != nil {
		t.Fatal(err)
	}
	d, ok := backend.Lookup("gemini")
	if !ok {
		t.Fatal("no gemini dialect")
	}
	b, err := backend.Choose(context.Background(), backend.Options{Dialect: d, Offline: o.Run.Offline, OfflineWhy: o.Run.OfflineWhy})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Kind != backend.KindOffline || strings.Contains(b.Reason, "--offline") || !strings.Contains(b.Reason, "a room is offline unless its instructor chooses a provider") {
		t.Fatalf("kind %q, reason %q", b.Kind, b.Reason)
	}
	format, args := b.Why.Sentence()
	if ja := fmt.Sprintf(lang.JA.Dyn(format), args...); !strings.Contains(ja, "教室は、講師がプロバイダーを選ばない限りオフラインです") {
		t.Fatalf("in Japanese: %q", ja)
	}
}
