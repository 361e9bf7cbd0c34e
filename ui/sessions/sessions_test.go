package sessions

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// TestMainArguments: what `glassbox sessions` says with no session, and the
// mistakes it refuses (the listing of real sessions is driven through
// realMain in the root package's sessions_test.go and classroom_test.go).
func TestMainArguments(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, tc := range []struct {
		args   []string
		err    error  // wrapped by Main's error; nil for none
		stderr string // in what it says
	}{
		{nil, nil, "no sessions yet"},
		{[]string{"--stats"}, nil, "no sessions yet"},
		{[]string{"--lang", "ja"}, nil, "まだセッションがありません"},
		{[]string{"-h"}, flag.ErrHelp, "-stats"},
		{[]string{"x"}, agentrun.ErrUsage, ""},
		{[]string{"--stats", "a", "b"}, agentrun.ErrUsage, ""},
		{[]string{"--frobnicate"}, agentrun.ErrUsage, "flag provided but not defined"},
		{[]string{"--stats", "nope"}, agentrun.ErrUsage, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			err := Main(t.Context(), tc.args, nil, &out, &errb)
			if tc.err == nil && err != nil || tc.err != nil && !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr %q, want %q", errb.String(), tc.stderr)
			}
		})
	}
	if err := Main(t.Context(), []string{"x"}, nil, &bytes.Buffer{}, &bytes.Buffer{}); !strings.Contains(lang.EN.Error(err), "takes no arguments but --stats [ID]") {
		t.Errorf("err = %v, want the arguments it takes", err)
	}
}
