package shell

// Where a command's paths point: cd, and the commands that change or
// remove the files they name.

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// cwdState is where the commands of a command line run so far: the
// workspace (rel is the folder inside it, "" the root), outside it, or
// somewhere only known at run time.
type cwdState struct {
	outside, unknown bool
	rel              string
	why              string // the cd that left the workspace
}

// changeDir follows cd, pushd and popd: where later relative paths point.
func (r *reader) changeDir(base string, args []string) {
	dir := cdTarget(args)
	why := Shown(strings.TrimSpace(base + " " + dir))
	switch {
	case dir == "" && base != "cd", base == "popd", dir == "-":
		r.cwdUnknown(why)
	case dir == "" || isHome(dir):
		r.cwd = cwdState{outside: true, why: why}
	case hasMarker(dir) && !strings.HasPrefix(dir, "/"):
		r.cwdUnknown(why)
	default:
		rel, outside, unknown := r.resolve(dir)
		switch {
		case unknown:
			r.cwdUnknown(why)
		case outside:
			r.cwd = cwdState{outside: true, why: base + " " + Shown(dir)}
		case !r.cwd.outside && !r.cwd.unknown:
			r.cwd.rel = rel
		}
	}
}

// envChdir is the folder env -C DIR (--chdir=DIR) runs its command in,
// when words is such an env.
func envChdir(words []string) (string, bool) {
	if path.Base(words[0]) != "env" {
		return "", false
	}
	args := words[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return "", false // the options end
		}
		if dir, ok := optionValue(a, args[i+1:], commandOption{'C', "--chdir", "uCS"}); ok {
			return dir, true
		}
		i += wrappers["env"].valueWords(a, i+1 < len(args))
	}
	return "", false
}

// cdTarget is the folder cd's arguments name: the first that is not an
// option ("" for none).
func cdTarget(args []string) string {
	for _, a := range args {
		if a != "--" && (!strings.HasPrefix(a, "-") || a == "-") {
			return a
		}
	}
	return ""
}

// cwdUnknown notes that the commands after a cd (why) run in a folder only
// known at run time, unless they already run outside the workspace.
func (r *reader) cwdUnknown(why string) {
	if !r.cwd.outside {
		r.cwd = cwdState{unknown: true, why: why}
	}
}

// isHome reports whether a rendered path starts at a home folder: ~,
// ~user, $HOME.
func isHome(p string) bool {
	return strings.HasPrefix(p, "~") || p == mark+"$HOME" || strings.HasPrefix(p, mark+"$HOME/")
}

// resolve places a path argument: its form relative to the workspace when
// it stays inside, or outside, or unknown (a relative path after a cd to a
// folder only known at run time).
func (r *reader) resolve(p string) (rel string, outside, unknown bool) {
	p = cleanWord(p, true)
	if !strings.HasPrefix(p, "/") {
		if r.cwd.outside {
			return "", true, false
		}
		if r.cwd.unknown {
			return "", false, true
		}
		p = path.Join(r.cwd.rel, p)
		if p == ".." || strings.HasPrefix(p, "../") {
			return "", true, false
		}
	}
	// A pattern is checked as the folder it lists: /* is /, x/* is x.
	check := p
	if i := strings.IndexAny(check, "*?["); i >= 0 {
		check = path.Dir(check[:i] + "x")
	}
	if r.ws == nil {
		return p, strings.HasPrefix(check, "/"), false
	}
	if r.budget.paths--; r.budget.paths < 0 {
		r.tooLarge = fmt.Sprintf("it names more than %d paths to check", maxPathChecks)
		return "", false, true
	}
	if !r.ws.Inside(check) {
		return "", true, false
	}
	return p, false, false
}

// changes looks at a command that changes or removes the files it names: a
// target outside the workspace is denied, and a relative one after a cd to
// a folder only known at run time needs a person.
func (r *reader) changes(c call) {
	if !changesFiles(c.base, c.args()) {
		return
	}
	for _, t := range changeTargets(c.base, c.args()) {
		why, stop := r.whyOutside(c.base, t)
		if stop {
			return
		}
		if why != "" {
			r.find("delete-outside-workspace", fmt.Sprintf("%s: %s is %s", c.base, Shown(t), why), c.source)
		}
	}
}

// changesFiles reports whether a changer changes files with these
// arguments: find only with -delete, -exec or -ok; rsync only with
// --delete… or --remove-source-files; the others always.
func changesFiles(base string, args []string) bool {
	switch base {
	case "find":
		return slices.ContainsFunc(args, func(a string) bool {
			return a == "-delete" || strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "-ok")
		})
	case "rsync":
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--delete") || a == "--remove-source-files" })
	}
	return true
}

// modeFirst are the changers whose first operand is a mode, an owner or a
// group, not a file.
var modeFirst = []string{"chmod", "chown", "chgrp", "chattr"}

// changeTargets are the files a changer names: its operands after the
// options, less a mode or owner that comes first, and for find the paths
// before its expression.
func changeTargets(base string, args []string) []string {
	if base == "find" {
		return findPaths(args)
	}
	skip := 0 // words still to pass over before the files
	if slices.Contains(modeFirst, base) {
		skip = 1
	}
	var targets []string
	options := true
	for _, a := range args {
		switch {
		case options && a == "--":
			options = false
		case options && strings.HasPrefix(a, "-") && len(a) > 1:
			skip = optionSkip(base, a, skip)
		case skip > 0:
			skip--
		default:
			targets = append(targets, a)
		}
	}
	return targets
}

// optionSkip is how many words are still to pass over after the option a
// of base: a mode written as an option (chmod -w, chattr -i) is the one
// that was to come; --reference=FILE stands for it; setfacl's -m ACL and
// its kin take one more.
func optionSkip(base, a string, skip int) int {
	switch {
	case skip > 0 && base == "chmod" && strings.Trim(a[1:], "rwxXstugo") == "":
		return skip - 1 // chmod -w FILE
	case skip > 0 && base == "chattr" && strings.Trim(a[1:], "aAcCdDeFijmPsStTux") == "":
		return skip - 1 // chattr -i FILE
	case strings.HasPrefix(a, "--reference="):
		return 0 // chmod --reference=RFILE FILE
	case base == "setfacl" && setfaclValue(a):
		return skip + 1
	}
	return skip
}

// setfaclValue reports whether setfacl's option a takes the next word as
// its value (-m ACL, -Rx ACL, --set ACL, --modify-file FILE).
func setfaclValue(a string) bool {
	if strings.HasPrefix(a, "--") {
		return slices.Contains([]string{"--set", "--set-file", "--modify", "--modify-file", "--remove", "--remove-file"}, a)
	}
	_, _, next := clusterValue(a, "mMxX")
	return next
}

// findPaths are the paths find's arguments name: those after its own
// options (-H, -L, -P, -D OPTS, -O3) and before its expression.
func findPaths(args []string) []string {
	for len(args) > 0 {
		a := args[0]
		if a == "-D" && len(args) > 1 {
			args = args[2:]
		} else if a == "-H" || a == "-L" || a == "-P" || a == "--" || strings.HasPrefix(a, "-O") {
			args = args[1:]
		} else {
			break
		}
	}
	for i, a := range args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			return args[:i] // the expression starts
		}
	}
	return args
}

// whyOutside says why the target t of base is outside the workspace ("a
// home folder"), or "" when it is not or cannot be known (then noted as
// unknown). stop is true when the reading went over a limit.
func (r *reader) whyOutside(base, t string) (why string, stop bool) {
	switch {
	case isHome(t):
		return "a home folder", false
	case strings.HasPrefix(t, mark):
		return r.expandedTarget(base, t), false
	}
	why, unknown := r.outsideWhy(t)
	switch {
	case r.tooLarge != "":
		return "", true
	case unknown:
		r.unknown(fmt.Sprintf("%s changes %s after %s, in a folder known only when the command runs", base, Shown(t), r.cwd.why))
	}
	return why, false
}

// outsideWhy says why the path t (not a home folder, not starting with an
// expansion) is outside the workspace ("outside the workspace, after cd
// /"), or "" when it is not or cannot be known: then unknown is true when
// it lies in a folder known only at run time.
func (r *reader) outsideWhy(t string) (why string, unknown bool) {
	_, outside, unknown := r.resolve(t)
	switch {
	case unknown:
		return "", true
	case outside && r.cwd.outside && !strings.HasPrefix(cleanWord(t, true), "/"):
		return "outside the workspace, after " + r.cwd.why, false
	case outside:
		return "outside the workspace", false
	}
	return "", false
}

// expandedTarget is why a target that starts with an expansion ($D/x,
// $(cmd)) is outside the workspace: the root folder when what comes
// before its first slash is empty. A name that is all expansion names
// nothing outside, unless it is another command's output (then noted as
// unknown).
func (r *reader) expandedTarget(base, t string) string {
	i := strings.Index(t, "/")
	switch {
	case i < 0 && strings.Contains(t, mark+"$("):
		// rm -rf $(cat list): which files go is another command's
		// output, known only when the command runs.
		r.unknown(fmt.Sprintf("%s changes %s, a name known only when the command runs", base, Shown(t)))
		return ""
	case i < 0:
		// rm -f "$f": commands start with an allow-listed environment,
		// so a variable the line does not set names nothing outside (and
		// $HOME was caught above).
		return ""
	}
	return fmt.Sprintf("the root folder when %s is empty", unmarked(t[:i]))
}
