package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/offline"
	"github.com/glassbox-dev/glassbox/tools"
)

// runHeadless is `glassbox run [flags] PROMPT`: one event from the cli
// source, stepped until the engine is idle, every transition printed.
func runHeadless(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runHeadlessWith(ctx, args, nil, stdin, stdout, stderr)
}

// runHeadlessWith lets tests replace the engine's retry wait.
func runHeadlessWith(ctx context.Context, args []string, sleep func(context.Context, time.Duration) error, stdin io.Reader, stdout, stderr io.Writer) int {
	o, rest, err := parseFlags("glassbox run", args, true, stderr)
	o.sleep = sleep
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "glassbox run: %v\n", err)
		return exitUsage
	}
	for _, a := range rest[min(1, len(rest)):] {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			fmt.Fprintf(stderr, "glassbox run: %q comes after the prompt; flags go before it (glassbox run [flags] PROMPT)\n", a)
			return exitUsage
		}
	}
	lesson, ok := offline.LessonByName(o.lesson)
	if !ok {
		fmt.Fprintf(stderr, "glassbox run: no lesson named %q (see 'glassbox lessons')\n", o.lesson)
		return exitUsage
	}
	prompt := strings.TrimSpace(strings.Join(rest, " "))
	if prompt == "" {
		prompt = lesson.Request
	}

	sess, err := newSession(ctx, o, &linePerson{in: newLineReader(stdin), out: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "glassbox run: %v\n", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitProvider
	}
	defer sess.close()

	if !o.json {
		where := sess.workspace.Root()
		if sess.temporary {
			where += " (a fresh copy of the sample project, removed on exit; --workspace DIR keeps the files)"
		}
		fmt.Fprintf(stdout, "glassbox %s · %s\nworkspace: %s\n", version, sess.backend.describe(), where)
	}

	var last loop.Transition
	sess.engine.Submit(loop.Event{Source: "cli", Type: "user_input", Data: prompt})
	for {
		t, err := sess.engine.Step(ctx)
		if errors.Is(err, loop.ErrIdle) {
			break
		}
		if err != nil {
			fmt.Fprintf(stderr, "glassbox run: interrupted in %s: %v\n", sess.engine.State(), err)
			return exitProvider
		}
		if o.json {
			err = loop.WriteJSON(stdout, t)
		} else {
			_, err = fmt.Fprintln(stdout, loop.Human(t))
		}
		if err != nil {
			fmt.Fprintf(stderr, "glassbox run: writing the trace: %v\n", err)
			return exitProvider
		}
		if t.Edge == loop.EdgeMaxIterations || t.Edge == loop.EdgeLLMFailure {
			last = t
		}
	}
	switch last.Edge {
	case loop.EdgeMaxIterations:
		return exitHalted
	case loop.EdgeLLMFailure:
		return exitProvider
	}
	return exitOK
}

// linePerson answers confirmations and questions from standard input, one
// line each; prompts go to stderr so stdout stays a clean trace. At EOF a
// confirmation is denied and a question has no answer.
type linePerson struct {
	in  *lineReader
	out io.Writer
}

func (p *linePerson) Confirm(ctx context.Context, req loop.ConfirmRequest) (loop.Approval, error) {
	fmt.Fprint(p.out, loop.Printable(fmt.Sprintf("\nThe agent wants to run %s %s\n  rule %s: %s\n", req.Call.Name, string(req.Call.Args), req.Decision.Rule, req.Decision.Reason)))
	if req.Preview != "" {
		fmt.Fprintf(p.out, "%s\n", loop.Printable(indent(req.Preview, "  | ")))
	}
	fmt.Fprint(p.out, "  allow? [y]es once / [a]lways this exact call / [n]o: ")
	line, err := p.in.readLine(ctx)
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

func (p *linePerson) Ask(ctx context.Context, q tools.Question) (string, error) {
	fmt.Fprint(p.out, loop.Printable(fmt.Sprintf("\nThe agent asks: %s\n", q.Text)))
	for i, opt := range q.Options {
		fmt.Fprint(p.out, loop.Printable(fmt.Sprintf("  %d) %s\n", i+1, opt)))
	}
	fmt.Fprint(p.out, "  answer: ")
	line, err := p.in.readLine(ctx)
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

func newLineReader(r io.Reader) *lineReader { return &lineReader{src: r, lines: make(chan string)} }

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

func listLessons(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "glassbox lessons: takes no arguments")
		return exitUsage
	}
	for _, l := range offline.Lessons() {
		fmt.Fprintf(stdout, "%s\t%s\n", l.Name, l.Title)
	}
	return exitOK
}
