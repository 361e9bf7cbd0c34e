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
	var dir string
	for _, a := range args {
		if a == "--" || (strings.HasPrefix(a, "-") && a != "-") {
			continue
		}
		dir = a
		break
	}
	unknown := func() {
		if !r.cwd.outside {
			r.cwd = cwdState{unknown: true, why: Shown(strings.TrimSpace(base + " " + dir))}
		}
	}
	switch {
	case dir == "" && base != "cd", base == "popd", dir == "-":
		unknown()
	case dir == "" || isHome(dir):
		r.cwd = cwdState{outside: true, why: Shown(strings.TrimSpace(base + " " + dir))}
	case hasMarker(dir) && !strings.HasPrefix(dir, "/"):
		unknown()
	default:
		rel, outside, unknownDir := r.resolve(dir)
		switch {
		case unknownDir:
			unknown()
		case outside:
			r.cwd = cwdState{outside: true, why: base + " " + Shown(dir)}
		case !r.cwd.outside && !r.cwd.unknown:
			r.cwd.rel = rel
		}
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
func (r *reader) changes(base string, args []string, ctx callContext) {
	skip := 0
	switch base {
	case "chmod", "chown", "chgrp", "setfacl", "chattr":
		skip = 1 // the mode, owner or group
	case "find":
		if !slices.ContainsFunc(args, func(a string) bool {
			return a == "-delete" || strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "-ok")
		}) {
			return
		}
	case "rsync":
		if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--delete") || a == "--remove-source-files" }) {
			return
		}
	}
	var targets []string
	options := true
	for _, a := range args {
		if base == "find" && (strings.HasPrefix(a, "-") || a == "(" || a == "!") {
			break // the expression starts
		}
		switch {
		case options && a == "--":
			options = false
		case options && strings.HasPrefix(a, "-") && len(a) > 1:
			if base == "chmod" && skip > 0 && strings.Trim(a[1:], "rwxXstugo") == "" {
				skip-- // chmod -w FILE: the mode
			}
		case skip > 0:
			skip--
		default:
			targets = append(targets, a)
		}
	}
	for _, t := range targets {
		var why string
		switch {
		case isHome(t):
			why = "a home folder"
		case strings.HasPrefix(t, mark):
			i := strings.Index(t, "/")
			if i < 0 && strings.Contains(t, mark+"$(") {
				// rm -rf $(cat list): which files go is another
				// command's output, known only when the command runs.
				r.unknown(fmt.Sprintf("%s changes %s, a name known only when the command runs", base, Shown(t)))
				continue
			}
			if i < 0 {
				// rm -f "$f": commands start with an allow-listed
				// environment, so a variable the line does not set
				// names nothing outside (and $HOME was caught above).
				continue
			}
			why = fmt.Sprintf("the root folder when %s is empty", unmarked(t[:i]))
		default:
			_, outside, unknown := r.resolve(t)
			switch {
			case r.tooLarge != "":
				return
			case unknown:
				r.unknown(fmt.Sprintf("%s changes %s after %s, in a folder known only when the command runs", base, Shown(t), r.cwd.why))
				continue
			case outside && r.cwd.outside && !strings.HasPrefix(cleanWord(t, true), "/"):
				why = "outside the workspace, after " + r.cwd.why
			case outside:
				why = "outside the workspace"
			default:
				continue
			}
		}
		r.find("delete-outside-workspace", fmt.Sprintf("%s: %s is %s", base, Shown(t), why), ctx.source)
	}
}
