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
	"golang.org/x/text/width"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// Person answers confirmations and questions from standard input, one line
// each; prompts go to stderr so stdout stays a clean trace. At EOF a
// confirmation is denied and a question has no answer.
//
// The prompts are in the person's language, and so are the answers it
// takes besides the English ones: y/yes/a/always/n/no in every language,
// and in Japanese also はい/許可 (once), 常に/いつも (always this exact call)
// and いいえ/拒否 (no); full-width letters (ｙ, Ａ) are read as ASCII.
// Anything else denies.
//
// A terminal echoes the answer a person types, and its Enter ends the
// prompt's line. An answer read from a pipe or a file is echoed by nobody,
// so Person writes it after the prompt itself, with the newline: the next
// line of the trace starts on a line of its own either way.
type Person struct {
	in    *lineReader
	out   io.Writer
	echo  bool   // the input is not a terminal: write each answer after its prompt
	label string // "[NAME] " in compare mode: which run is asking
	lang  lang.Lang
}

// NewPerson reads answers from in and writes the prompts to out, in English.
func NewPerson(in io.Reader, out io.Writer) *Person { return NewPersonIn(in, out, lang.EN) }

// NewPersonIn reads answers from in and writes the prompts to out, in
// language l.
func NewPersonIn(in io.Reader, out io.Writer, l lang.Lang) *Person {
	return &Person{in: &lineReader{src: in, lines: make(chan string)}, out: out, echo: !isTerminal(in), lang: l}
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
	return &Person{in: p.in, out: p.out, echo: p.echo, label: "[" + name + "] ", lang: p.lang}
}

func (p *Person) Confirm(ctx context.Context, req loop.ConfirmRequest) (loop.Approval, error) {
	l := p.lang
	fmt.Fprint(p.out, loop.Printable("\n"+p.label+l.F("The agent wants to run %s %s", req.Call.Name, string(req.Call.Args))+"\n  "+l.F("rule %s: %s", req.Decision.Rule, l.Reason(req.Decision.Reason, builtInReasons()))+"\n"))
	if req.Preview != "" {
		fmt.Fprintf(p.out, "%s\n", loop.Printable(indent(req.Preview, "  | ")))
	}
	fmt.Fprint(p.out, "  "+l.T("allow? [y]es once / [a]lways this exact call / [n]o: "))
	line, err := p.answer(ctx)
	if err != nil {
		fmt.Fprintln(p.out, l.T("(no answer: denied)"))
		return loop.Deny, err
	}
	return approval(line), nil
}

// approval reads a person's answer to a confirmation (the Person doc lists
// the words): once, always this exact call, or no.
func approval(line string) loop.Approval {
	switch strings.ToLower(width.Fold.String(strings.TrimSpace(line))) {
	case "y", "yes", "はい", "許可":
		return loop.AllowOnce
	case "a", "always", "常に", "いつも":
		return loop.AllowSession
	}
	return loop.Deny
}

func (p *Person) Ask(ctx context.Context, q tools.Question) (string, error) {
	l := p.lang
	fmt.Fprint(p.out, loop.Printable("\n"+p.label+l.F("The agent asks: %s", q.Text)+"\n"))
	for i, opt := range q.Options {
		fmt.Fprint(p.out, loop.Printable(fmt.Sprintf("  %d) %s\n", i+1, opt)))
	}
	fmt.Fprint(p.out, "  "+l.T("answer: "))
	line, err := p.answer(ctx)
	if err != nil {
		fmt.Fprintln(p.out, l.T("(end of input)"))
		return "", errors.New("standard input ended before an answer")
	}
	line = strings.TrimSpace(line)
	if n, err := strconv.Atoi(width.Fold.String(line)); err == nil && n >= 1 && n <= len(q.Options) {
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
