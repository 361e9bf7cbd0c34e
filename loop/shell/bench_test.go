package shell

import (
	"strings"
	"testing"
)

// hostileLine is one long command line made of the spellings an attacker
// mixes to hide a command (wrappers with clustered options, nested sh -c,
// variables, substitutions, sed and awk programs, a here-string, brace
// words), repeated up to just under MaxCommandBytes: the most a decision
// reads in full.
func hostileLine() string {
	const unit = `env -iu X timeout -vs KILL 5 sh -c 'D=$(printf %s "$y"); rm -rf "$D"/b' _ ~ | ` +
		`sed -ne p -e ':a;s/x/y/' | awk '{print $1}' && X=ls; $X -l {a,b}{c,d} ; ` +
		`bash <<< "echo \"$(id)\"" ; find -L . -name '*.o' -exec rm {} + ; `
	return strings.Repeat(unit, (MaxCommandBytes-1)/len(unit))
}

// BenchmarkReadHostile reads hostileLine in both dialects: the cost of
// the security layer's reading of one command (the policy's decision adds
// its patterns, BenchmarkPolicyHostile in loop).
func BenchmarkReadHostile(b *testing.B) {
	src := hostileLine()
	if c := Read(src, nil); c.TooLarge != "" {
		b.Fatalf("the line is over a limit (%s); the benchmark is meant to read it whole", c.TooLarge)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Read(src, nil)
	}
}
