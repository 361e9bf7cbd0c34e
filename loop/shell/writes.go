package shell

// Writes outside the workspace: the files a command line writes through
// its redirections and through its commands' arguments.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// writeCheck is the check that finds them.
const writeCheck = "write-outside-workspace"

// writeTargets are the commands that write the files their arguments
// name, each with how to find those files among its arguments.
var writeTargets = map[string]func(args []string) []string{
	"tee":     func(args []string) []string { return operands(args, wrapper{}) },
	"cp":      destination(copyOptions),
	"mv":      destination(copyOptions),
	"ln":      destination(copyOptions),
	"install": installTargets,
	"dd":      ddOutput,
	"touch":   func(args []string) []string { return operands(args, touchOptions) },
	"mkdir":   func(args []string) []string { return operands(args, mkdirOptions) },
	"sed":     sedInPlace,
	"curl":    func(args []string) []string { return downloadOutputs("curl", args) },
	"wget":    func(args []string) []string { return downloadOutputs("wget", args) },
	"wget2":   func(args []string) []string { return downloadOutputs("wget", args) },
}

// The options of cp, mv, ln, touch, mkdir and install that take the
// next word as their value.
var (
	copyOptions    = wrapper{optsWithValue: "St", longWithValue: []string{"--suffix", "--target-directory"}}
	touchOptions   = wrapper{optsWithValue: "drt", longWithValue: []string{"--date", "--reference"}}
	mkdirOptions   = wrapper{optsWithValue: "m", longWithValue: []string{"--mode"}}
	installOptions = wrapper{optsWithValue: "gmoSt", longWithValue: []string{"--group", "--mode", "--owner", "--suffix", "--target-directory"}}
)

// writes finds the files a command writes outside the workspace.
func (r *reader) writes(c call) {
	targets, ok := writeTargets[c.base]
	if !ok {
		return
	}
	for _, t := range targets(c.args()) {
		if r.writesTo(c.base, t, c.source); r.tooLarge != "" {
			return
		}
	}
}

// writeOps are the redirections that write the file they name.
var writeOps = []syntax.RedirOperator{syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut}

// redirectWrites finds a redirection that writes a file outside the
// workspace: > FILE and its kin, and bash's >& FILE (a word that is no
// descriptor).
func (r *reader) redirectWrites(rd *syntax.Redirect, target, source string) {
	if slices.Contains(writeOps, rd.Op) || rd.Op == syntax.DplOut && target != "-" && !isFD(target) {
		r.writesTo("the redirection "+rd.Op.String(), target, source)
	}
}

// writesTo finds the file t that by (a command, a redirection) writes
// when it is clearly outside the workspace: a home folder, or a path that
// resolves outside it, after a cd outside too. A target known only when
// the command runs ($TMPDIR/x, $(…)) is left to the person who confirms
// and to the kernel's sandbox, and /dev, /proc and /sys to device-write.
func (r *reader) writesTo(by, t, source string) {
	t = cleanWord(t, true)
	var why string
	switch {
	case t == "" || kernelPath(t):
		return
	case isHome(t):
		why = "a home folder"
	case strings.HasPrefix(t, mark):
		return
	default:
		why, _ = r.outsideWhy(t)
	}
	if why != "" {
		r.find(writeCheck, fmt.Sprintf("%s writes %s, %s", by, Shown(t), why), source)
	}
}

// kernelPath reports whether p lies in /dev, /proc or /sys, whose writes
// the device-write check judges.
func kernelPath(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	p = path.Clean(p)
	return slices.ContainsFunc([]string{"/dev", "/proc", "/sys"}, func(dir string) bool {
		return p == dir || strings.HasPrefix(p, dir+"/")
	})
}

// operands are a command's arguments that are not options nor an
// option's value (as w reads its options); after -- every word is one.
func operands(args []string, w wrapper) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			i += w.valueWords(a, i+1 < len(args))
		default:
			out = append(out, a)
		}
	}
	return out
}

// destination finds where cp, mv and ln write: the folder of -t DIR
// (--target-directory=DIR), else their last operand when they have two
// or more.
func destination(w wrapper) func(args []string) []string {
	target := commandOption{'t', "--target-directory", w.optsWithValue}
	return func(args []string) []string {
		for i, a := range args {
			if a == "--" {
				break
			}
			if dir, ok := optionValue(a, args[i+1:], target); ok {
				return []string{dir}
			}
		}
		if ops := operands(args, w); len(ops) > 1 {
			return ops[len(ops)-1:]
		}
		return nil
	}
}

// installTargets are the folders install -d makes, else its destination.
func installTargets(args []string) []string {
	for _, a := range operandsEnd(args) {
		if a == "--directory" || shortFlag(a, 'd', installOptions.optsWithValue) {
			return operands(args, installOptions)
		}
	}
	return destination(installOptions)(args)
}

// operandsEnd are the words before --.
func operandsEnd(args []string) []string {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i]
	}
	return args
}

// shortFlag reports whether the cluster of short options a holds letter
// before any letter that takes a value (one of withValue).
func shortFlag(a string, letter byte, withValue string) bool {
	if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
		return false
	}
	for k := 1; k < len(a); k++ {
		switch {
		case a[k] == letter:
			return true
		case strings.IndexByte(withValue, a[k]) >= 0:
			return false
		}
	}
	return false
}

// ddOutput is the file dd's of= names.
func ddOutput(args []string) []string {
	var out []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "of="); ok {
			out = append(out, v)
		}
	}
	return out
}

// sedInPlace are the files sed -i (--in-place) rewrites: its operands
// after the script.
func sedInPlace(args []string) []string {
	s := sedArgs(args)
	if !s.inPlace {
		return nil
	}
	return s.inputs
}

// downloadOptions are how curl and wget name the file they save to, with
// the short options of each that take a value: the first of a cluster
// ends it (curl -sSLo FILE, wget -qO FILE).
var downloadOptions = map[string]commandOption{
	"curl": {'o', "--output", "AbcCdDeEFHKmoPQrtTuUwxXyYz"},
	"wget": {'O', "--output-document", "aABDeiIlOoPQRtTUwX"},
}

// downloadOutputs are the files a download saves to by name (curl -o
// FILE, wget -O FILE); - is standard output.
func downloadOutputs(base string, args []string) []string {
	o := downloadOptions[base]
	var out []string
	for i, a := range args {
		if v, ok := optionValue(a, args[i+1:], o); ok && v != "-" {
			out = append(out, v)
		}
	}
	return out
}
