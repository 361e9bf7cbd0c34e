//go:build !linux

package tools

import (
	"errors"
	"os"
)

// openUnnamed reports that this system has no nameless files (O_TMPFILE is
// Linux's); write_file uses a named temporary file instead.
func openUnnamed(*os.Root) (*os.File, error) { return nil, errors.ErrUnsupported }

// linkUnnamed is never called where openUnnamed always fails.
func linkUnnamed(*os.Root, *os.File, string) error { return errors.ErrUnsupported }
