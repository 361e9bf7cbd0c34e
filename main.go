// Command glassbox is a full-screen terminal glass box for an AI coding
// agent: every transition of its Think → Act → Observe loop is visible and
// steppable, with the raw HTTP payloads, the security decisions and the tool
// results. Run it with no arguments for the TUI, or `glassbox run PROMPT` for
// a headless trace.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes of `glassbox run` (DESIGN §3).
const (
	exitOK       = 0
	exitProvider = 1
	exitUsage    = 2
	exitHalted   = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	loadDotEnv(os.Stderr)
	os.Exit(realMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// realMain is main without the process: tests call it directly.
func realMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "run":
			return runHeadless(ctx, args[1:], stdin, stdout, stderr)
		case "lessons":
			return listLessons(args[1:], stdout, stderr)
		case "version":
			fmt.Fprintf(stdout, "glassbox %s\n", version)
			return exitOK
		case "help":
			usage(stdout)
			return exitOK
		}
	}
	return runTUI(ctx, args, stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `glassbox: a glass box for an AI coding agent.

Usage:
  glassbox [flags]              full-screen TUI (offline simulation unless a provider is configured)
  glassbox run [flags] PROMPT   headless: run the loop on PROMPT and print the trace
  glassbox lessons              list the bundled offline lessons
  glassbox version

Run 'glassbox run -h' for the flags.
`)
}

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")
