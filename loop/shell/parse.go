package shell

// Parsing a command line in one dialect, and the command lines nested in
// it (sh -c, eval, strings of interpreter code).

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// linesBefore is src up to the start of the line err points at, or "".
func linesBefore(src string, err error) string {
	var line uint
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		line = pe.Pos.Line()
	case errors.As(err, &le):
		line = le.Pos.Line()
	}
	end := 0
	for ; line > 1; line-- {
		i := strings.IndexByte(src[end:], '\n')
		if i < 0 {
			return ""
		}
		end += i + 1
	}
	return src[:end]
}

// parse parses src in the reader's dialect. The POSIX parser refuses `&>`
// as a bash feature where dash reads `&` then `>`: the reading does as
// dash does.
//
// bash reads `$((…))` and `((…))` that are not arithmetic as a command
// substitution or command of a subshell, `$( (…))` and `( (…))`; its
// reading does the same when the arithmetic reading fails.
// It returns the text it parsed, which the syntax tree's positions refer
// to.
func (r *reader) parse(src string) (*syntax.File, string, error) {
	file, text, err := r.parseDash(src)
	if err != nil && r.d.lang == syntax.LangBash && strings.Contains(src, "((") {
		split := strings.ReplaceAll(src, "((", "( (")
		if f, err2 := syntax.NewParser(syntax.Variant(r.d.lang)).Parse(strings.NewReader(split), ""); err2 == nil {
			return f, split, nil
		}
	}
	return file, text, err
}

func (r *reader) parseDash(src string) (*syntax.File, string, error) {
	for range maxAmpRedirects + 1 {
		file, err := syntax.NewParser(syntax.Variant(r.d.lang)).Parse(strings.NewReader(src), "")
		var le syntax.LangError
		if err == nil || r.d.lang != syntax.LangPOSIX || !errors.As(err, &le) || !strings.HasPrefix(le.Feature, "`&>") {
			return file, src, err
		}
		at := int(le.Pos.Offset())
		if at+1 >= len(src) || src[at] != '&' {
			return file, src, err
		}
		src = src[:at+1] + " " + src[at+1:]
	}
	return nil, src, fmt.Errorf("more than %d `&>` in one command line", maxAmpRedirects)
}

// nested reads a command line given to a command as a string (sh -c '…',
// eval …) in dialect d. A nested line that cannot be read makes what the
// command runs unknown.
func (r *reader) nested(src string, d Dialect, by, outer string, depth int, stream bool) {
	if depth+1 > MaxNesting {
		r.unknown(fmt.Sprintf("command lines are nested more than %d deep (sh -c inside sh -c …)", MaxNesting))
		return
	}
	saved := r.d
	r.d = d
	defer func() { r.d = saved }()
	file, src, err := r.parse(src)
	if err != nil {
		r.unknown(fmt.Sprintf("the command line given to %s cannot be read (%v)", by, err))
		return
	}
	r.readFile(file, src, outer, depth+1, stream)
}

// denialsIn reads text that may run as a command line (a string in
// interpreter code, a variable's value bash may evaluate) for what it
// would deny. Text that is no command line is passed over, and nothing in
// it counts as unknown: it may never run.
func (r *reader) denialsIn(text, source string, depth int) {
	if strings.TrimSpace(text) == "" || depth+1 > MaxNesting {
		return
	}
	file, text, err := r.parse(text)
	if err != nil {
		return
	}
	unknown := r.out.Unknown
	r.readFile(file, text, source, depth+1, false)
	r.out.Unknown = unknown
}
