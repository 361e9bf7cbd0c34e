package headless

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
)

// Person answers confirmations and questions from standard input, one line
// each; prompts go to stderr so stdout stays a clean trace. At EOF a
// confirmation is denied and a question has no answer.
//
// A terminal echoes the answer a person types, and its Enter ends the
// prompt's line. An answer read from a pipe or a file is echoed by nobody,
// so Person writes it after the prompt itself, with the newline: the next
// line of the trace starts on a line of its own either way.
type Person struct {
	in    *lineReader
	out   io.Writer
	echo  bool   // the input is not a terminal: write each answer after its prompt
	label string // "[gemini] " in compare mode: which run is asking
}

// NewPerson reads answers from in and writes the prompts to out.
func NewPerson(in io.Reader, out io.Writer) *Person {
	return &Person{in: &lineReader{src: in, lines: make(chan string)}, out: out, echo: !isTerminal(in)}
}

// isTerminal reports whether r is a terminal, which echoes what is typed.
func isTerminal(r io.Reader) bool {
	f, ok := r.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}

// answer reads one line for the prompt just written and, when the input is
// not a terminal, ends the prompt's line with the answer as read.
func (p *Person) answer(ctx context.Context) (string, error) {
	line, err := p.in.readLine(ctx)
	if err == nil && p.echo {
		fmt.Fprintln(p.out, loop.Printable(line))
	}
	return line, err
}

var _ loop.Person = (*Person)(nil)

// For is the same person answering for the run named name: the prompts say
// which run asks, the answers come from the same input.
func (p *Person) For(name string) *Person {
	if name == "" {
		return p
	}
	return &Person{in: p.in, out: p.out, echo: p.echo, label: "[" + name + "] "}
}

func (p *Person) Confirm(ctx context.Context, req loop.ConfirmRequest) (loop.Approval, error) {
	fmt.Fprint(p.out, loop.Printable(fmt.Sprintf("\n%sThe agent wants to run %s %s\n  rule %s: %s\n", p.label, req.Call.Name, string(req.Call.Args), req.Decision.Rule, req.Decision.Reason)))
	if req.Preview != "" {
		fmt.Fprintf(p.out, "%s\n", loop.Printable(indent(req.Preview, "  | ")))
	}
	fmt.Fprint(p.out, "  allow? [y]es once / [a]lways this exact call / [n]o: ")
	line, err := p.answer(ctx)
	if err != nil {
		fmt.Fprintln(p.out, "(no answer: denied)")
		return loop.Deny, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return loop.AllowOnce, nil
	case "a", "always":
		return loop.AllowSession, nil
	}
	return loop.Deny, nil
}

func (p *Person) Ask(ctx context.Context, q tools.Question) (string, error) {
	fmt.Fprint(p.out, loop.Printable(fmt.Sprintf("\n%sThe agent asks: %s\n", p.label, q.Text)))
	for i, opt := range q.Options {
		fmt.Fprint(p.out, loop.Printable(fmt.Sprintf("  %d) %s\n", i+1, opt)))
	}
	fmt.Fprint(p.out, "  answer: ")
	line, err := p.answer(ctx)
	if err != nil {
		fmt.Fprintln(p.out, "(end of input)")
		return "", errors.New("standard input ended before an answer")
	}
	line = strings.TrimSpace(line)
	if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(q.Options) {
		return q.Options[n-1], nil
	}
	return line, nil
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// lineReader reads standard input one line at a time in a goroutine, so a
// wait for an answer can end with ctx.
type lineReader struct {
	once  sync.Once
	src   io.Reader
	lines chan string
}

func (l *lineReader) readLine(ctx context.Context) (string, error) {
	l.once.Do(func() {
		go func() {
			sc := bufio.NewScanner(l.src)
			for sc.Scan() {
				l.lines <- sc.Text()
			}
			close(l.lines)
		}()
	})
	select {
	case line, ok := <-l.lines:
		if !ok {
			return "", io.EOF
		}
		return line, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
