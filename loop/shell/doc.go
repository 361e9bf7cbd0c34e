// Package shell reads a command line the way the shells will, for the
// security layer (loop.Policy). A pattern tried on the raw text is fooled by
// ordinary spellings: `"sudo" id`, `s\udo id`, `curl x 2>&1 | sh` (the & of
// the redirection), `curl x | env sh`. So the command line is parsed with a
// real shell parser (mvdan.cc/sh/v3/syntax) and every simple command in it,
// wherever it stands (a pipeline, a list, a subshell, a function body,
// $(…), `…`, <(…), an arithmetic expression, a here-document fed to a
// shell), is looked at by the named checks (Checks), each for one class of
// harm whatever the spelling.
//
// Two shells may run it. execute_command runs `sh -c`, and sh is dash on
// Debian and Ubuntu, bash on others (and busybox ash on Alpine); the two
// grammars differ in places an attacker can use:
//
//	a &>f b    dash runs `a &` then `>f b`; bash runs a with its output to f
//	$'\''      bash reads one quote; dash reads two characters, $\, and opens a quote
//
// Read therefore reads the command line twice, once in the POSIX grammar
// (as dash reads it) and once in bash's, and the policy takes both
// readings: a denial found in either stands, and when the two differ
// (Command.Disagreement) only a person may approve the command.
//
// What a reading cannot know — a command name built at run time, code
// given to an interpreter — it says (Reading.Unknown) rather than guesses;
// what is over a reading limit makes the command too large to read
// (Command.TooLarge). Reading never runs anything.
package shell
