package shell

// Where a command's standard input comes from.

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// stdin is where a command's standard input comes from, as its
// redirections say.
type stdin struct {
	stream bool   // a stream that may carry code: /dev/stdin, a descriptor, <(…), a variable
	code   string // a here-document's or here-string's text
	hasDoc bool
	file   string // the file < FILE names, when it is one
}

func stdinOf(redirs []*syntax.Redirect) stdin {
	var in stdin
	for _, rd := range redirs {
		if rd.N != nil && rd.N.Value != "0" {
			continue
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if rd.Hdoc != nil {
				in.code, in.hasDoc = wordText(rd.Hdoc, false), true
			}
		case syntax.WordHdoc:
			in.code, in.hasDoc = wordText(rd.Word, false), true
		case syntax.RdrIn, syntax.DplIn, syntax.RdrInOut:
			t := wordText(rd.Word, false)
			if streamPath(t) || hasMarker(t) || isFD(t) {
				in.stream = true
			} else if rd.Op != syntax.DplIn {
				in.file = t
			}
		}
	}
	return in
}

func isFD(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// streamPath reports whether a path names a stream rather than a file:
// /dev/stdin, /dev/fd/N, /proc/self/fd/N, bash's network paths, "-".
func streamPath(p string) bool {
	if p == "-" {
		return true
	}
	if !strings.HasPrefix(p, "/") {
		return false
	}
	p = path.Clean(p)
	return p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/tcp/") ||
		strings.HasPrefix(p, "/dev/udp/") || (strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"))
}
