package lang

import (
	"regexp"
	"strings"
)

// Sandbox says a sandbox line (tools.SandboxStatus: "on — TOOLS: what
// commands may do; …; limits: …; nothing left open", or "off — why") in
// language l, clause by clause: what it names (Landlock ABI 7, cgroup v1
// pids.max, a size) stays as it is, and a clause of another shape is kept
// as the line wrote it.
func (l Lang) Sandbox(line string) string {
	if l != JA || line == "" {
		return line
	}
	clauses := splitTop(line, "; ")
	for i, c := range clauses {
		if i == 0 {
			clauses[i] = l.sandboxHead(c)
			continue
		}
		clauses[i] = l.sandboxClause(c)
	}
	return strings.Join(clauses, "。")
}

// sandboxHead is the line's first clause: on or off, then what confines
// the commands and what they may do, or why there is no sandbox.
func (l Lang) sandboxHead(c string) string {
	head, rest, ok := strings.Cut(c, " — ")
	if !ok {
		return c
	}
	word, open, _ := strings.Cut(head, " (open: ")
	head = l.Dyn(word)
	if open != "" {
		head += " (" + l.F("open: %s", strings.TrimSuffix(open, ")")) + ")"
	}
	if tools, what, ok := strings.Cut(rest, ": "); ok && word == "on" {
		return head + " — " + tools + ": " + l.Dyn(what)
	}
	return head + " — " + l.Dyn(rest)
}

// The clauses after the first, by their shape.
var (
	socketsClosed = regexp.MustCompile(`^sockets closed: (.+)$`)
	limitsClause  = regexp.MustCompile(`^limits: (.+)$`)
	quotaClause   = regexp.MustCompile(`^workspace quota: (.+) \(checked every (.+) while a program runs\)$`)
	leftOpen      = regexp.MustCompile(`^left open: (.+)$`)
)

func (l Lang) sandboxClause(c string) string {
	if m := socketsClosed.FindStringSubmatch(c); m != nil {
		return l.F("sockets closed: %s", m[1])
	}
	if m := limitsClause.FindStringSubmatch(c); m != nil {
		parts := splitTop(m[1], ", ")
		for i, p := range parts {
			parts[i] = l.limitWords(p)
		}
		return l.F("limits: %s", strings.Join(parts, "、"))
	}
	if m := quotaClause.FindStringSubmatch(c); m != nil {
		return l.F("workspace quota: %s (checked every %s while a program runs)", l.quotaWords(m[1]), m[2])
	}
	if m := leftOpen.FindStringSubmatch(c); m != nil {
		return l.F("left open: %s", m[1])
	}
	return l.Dyn(c)
}

// One limit of the limits clause.
var (
	processesLimit = regexp.MustCompile(`^(\d+) processes( \(.+\))?$`)
	memoryLimit    = regexp.MustCompile(`^(\S+ \S+) of memory( \(.+\))?$`)
	dataLimit      = regexp.MustCompile(`^(\S+ \S+) of data a process( \(.+\))?$`)
	fileLimit      = regexp.MustCompile(`^(\S+ \S+) a file$`)
	cpuLimit       = regexp.MustCompile(`^(\S+ \S+) of CPU a process$`)
	coreLimit      = regexp.MustCompile(`^no core files( \(.+\))?$`)
)

func (l Lang) limitWords(p string) string {
	if m := processesLimit.FindStringSubmatch(p); m != nil {
		return l.F("%s processes", m[1]) + m[2]
	}
	if m := memoryLimit.FindStringSubmatch(p); m != nil {
		return l.F("%s of memory", m[1]) + m[2]
	}
	if m := dataLimit.FindStringSubmatch(p); m != nil {
		return l.F("%s of data a process", m[1]) + m[2]
	}
	if m := fileLimit.FindStringSubmatch(p); m != nil {
		return l.F("%s a file", m[1])
	}
	if m := cpuLimit.FindStringSubmatch(p); m != nil {
		return l.F("%s of CPU a process", m[1])
	}
	if m := coreLimit.FindStringSubmatch(p); m != nil {
		return l.T("no core files") + m[1]
	}
	return p
}

// quotaWords is a workspace quota ("128 MiB and 10,000 entries").
func (l Lang) quotaWords(q string) string {
	parts := strings.Split(q, " and ")
	for i, p := range parts {
		if n, ok := strings.CutSuffix(p, " entries"); ok {
			parts[i] = l.F("%s entries", n)
		}
	}
	return strings.Join(parts, "、")
}

// splitTop splits s at sep where sep is outside parentheses.
func splitTop(s, sep string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '(':
			depth++
		case s[i] == ')':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			out = append(out, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(out, s[start:])
}
