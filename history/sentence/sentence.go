// Package sentence is an error whose message is a sentence for a person,
// kept as its English format and its values, so that a front end can say it
// in the reader's language.
//
// The engine and the providers may not know about languages (ui/lang is a
// front end's package): they build their messages with Errorf as they would
// with fmt.Errorf, and the English text is the error's Error() as before.
// A front end that recognises the error (ui/lang's Lang.Error) formats the
// same values into the translated format instead. The format is the key of
// the message catalog; ui/lang's catalog test reads every Errorf call in the
// source and fails when its format has no Japanese.
package sentence

import "fmt"

// Said is an error that knows the sentence it says: its English format and
// the values that fill it. *Error is one; another package's error type may
// be one too (providers.Error).
type Said interface {
	error
	Sentence() (format string, args []any)
}

// Error is a sentence made from a format and values. It wraps what the
// format's %w verbs wrap, exactly as fmt.Errorf does.
type Error struct {
	format string
	args   []any
	err    error // fmt.Errorf(format, args...): the English and the wrapping
}

var _ Said = (*Error)(nil)

// Errorf is fmt.Errorf that keeps its format and values.
func Errorf(format string, args ...any) error {
	return &Error{format: format, args: args, err: fmt.Errorf(format, args...)}
}

func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns what the format's %w verbs wrap: one error, several, or none.
func (e *Error) Unwrap() []error {
	switch u := e.err.(type) {
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	}
	return nil
}

// Sentence is the format, as given to Errorf, and its values. A %w in it
// formats its error as %v would.
func (e *Error) Sentence() (string, []any) { return e.format, e.args }
