package lang

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/glassbox-dev/glassbox/history/sentence"
)

// Error says err in language l. An error that is a sentence
// (history/sentence, providers.Error) is formatted from its values into
// its translated format, each value that is itself an error said the same
// way; any other error keeps its own text, with the sentences it wraps
// said in l where they appear in it. In English this is err.Error().
func (l Lang) Error(err error) string {
	if err == nil {
		return ""
	}
	if l != JA {
		return err.Error()
	}
	if pe, ok := err.(*fs.PathError); ok {
		if why := pathProblem(pe.Err); why != "" {
			return l.F(why, pe.Path)
		}
	}
	if s, ok := err.(sentence.Said); ok {
		if format, args := s.Sentence(); format != "" {
			said := make([]any, len(args))
			for i, a := range args {
				if e, ok := a.(error); ok {
					a = l.Error(e)
				}
				said[i] = a
			}
			return fmt.Sprintf(strings.ReplaceAll(l.T(format), "%w", "%v"), said...)
		}
	}
	text := err.Error()
	for _, c := range wrapped(err) {
		if c == nil {
			continue
		}
		if en := c.Error(); en != "" {
			text = strings.Replace(text, en, l.Error(c), 1)
		}
	}
	return text
}

// wrapped is what err wraps directly: one error, several, or none.
func wrapped(err error) []error {
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	}
	return nil
}

// pathProblem is the sentence for the commonest reasons a file cannot be
// opened or looked at, with the path as its value ("" for another reason:
// the system's own words are kept).
func pathProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "%s: there is no such file or folder"
	case errors.Is(err, fs.ErrPermission):
		return "%s: permission denied"
	}
	return ""
}
