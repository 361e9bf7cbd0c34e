package loop

import (
	"slices"
	"strings"
	"testing"
)

// Issue 19: a policy names the variables commands get besides the
// sandbox's allow-list; a secret-looking name, or one the sandbox sets for
// each command, is refused with a message saying why.
func TestPolicyEnv(t *testing.T) {
	p, err := ParsePolicy([]byte(`env = ["PIP_INDEX_URL", "GOFLAGS"]`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Env, []string{"PIP_INDEX_URL", "GOFLAGS"}) {
		t.Fatalf("Env = %q", p.Env)
	}
	if d := DefaultPolicy(); len(d.Env) != 0 {
		t.Fatalf("the built-in policy passes %q", d.Env)
	}
	for name, want := range map[string]string{
		"GITHUB_TOKEN":   "looks like a secret",
		"OPENAI_API_KEY": "looks like a secret",
		"HOME":           "set by glassbox",
		"LD_PRELOAD":     "set by glassbox",
	} {
		if _, err := ParsePolicy([]byte(`env = ["` + name + `"]`)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("env = [%q]: %v, want an error saying %q", name, err, want)
		}
	}
}
