package sentence

import (
	"errors"
	"io/fs"
	"testing"
)

func TestErrorfIsFmtErrorf(t *testing.T) {
	inner := errors.New("inner")
	err := Errorf("--workspace %s: %w (and %w)", "/tmp/x", fs.ErrNotExist, inner)
	if got, want := err.Error(), "--workspace /tmp/x: file does not exist (and inner)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, inner) {
		t.Errorf("errors.Is does not see what %%w wraps: %v", err)
	}
	var s Said
	if !errors.As(err, &s) {
		t.Fatal("a sentence is not Said")
	}
	format, args := s.Sentence()
	if format != "--workspace %s: %w (and %w)" || len(args) != 3 {
		t.Errorf("Sentence() = %q, %v", format, args)
	}
	if u := Errorf("no wrapping %d", 1).(*Error).Unwrap(); u != nil {
		t.Errorf("Unwrap of a sentence without %%w = %v", u)
	}
}
