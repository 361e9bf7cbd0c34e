package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// glassbox follow: ADDR is required, one room at a time, and it needs a
// terminal (the glass box, and the passphrase asked without echo).
func TestFollowCommandLine(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"follow"}, exitUsage, "Usage: glassbox follow ADDR"},
		{[]string{"follow", "a:1", "b:2"}, exitUsage, `unexpected argument "b:2" (one room at a time)`},
		{[]string{"follow", "127.0.0.1:1", "--fingerprint", "SHA256:x"}, exitUsage, "the glass box needs a terminal"},
		{[]string{"follow", "--frobnicate", "a:1"}, exitUsage, "frobnicate"},
		{[]string{"follow", "-h"}, exitOK, "--fingerprint"},
		{[]string{"help"}, exitOK, "glassbox follow ADDR"},
		{[]string{"--broadcast", "127.0.0.1:0", "--offline"}, exitUsage, "needs a terminal"},
	} {
		var out, errb bytes.Buffer
		code := realMain(context.Background(), c.args, strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("%q: exit %d (want %d), output lacks %q:\n%s%s", c.args, code, c.code, c.want, out.String(), errb.String())
		}
	}
}
