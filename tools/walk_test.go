package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Issue 28 finding 1: every walk counts every entry it meets — folders,
// links, FIFOs, not only regular files — and stops at its limit, reading a
// huge folder no further than the limit.
func TestWalkCountsEveryEntry(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/b/c", "d"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, filepath.Join(dir, "a", "f.txt"), "12345")
	symlink(t, "/etc", filepath.Join(dir, "link"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []string
	count, err := Walk(context.Background(), os.DirFS(dir), ".", WalkLimits{}, func(name string, d fs.DirEntry, err error) error {
		seen = append(seen, name)
		return err
	})
	if err != nil || count.Entries != 7 || count.Bytes != 5 {
		t.Fatalf("count %+v, %v; saw %v", count, err, seen)
	}
	if strings.Join(seen, " ") != ". a a/b a/b/c a/f.txt d fifo link" {
		t.Errorf("order %v", seen)
	}
	for _, lim := range []WalkLimits{{Entries: 6}, {Bytes: 4}} {
		_, err := Walk(context.Background(), os.DirFS(dir), ".", lim, func(string, fs.DirEntry, error) error { return nil })
		var le *WalkLimitError
		if !errors.As(err, &le) || !errors.Is(err, ErrWalkLimit) {
			t.Errorf("limit %+v: %v", lim, err)
		}
	}
}

// A folder of 5,000 empty folders: a walk limited to 100 entries reads
// one batch past it, sees none of them, and says which limit.
func TestWalkStopsEarlyInAHugeFolder(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "glassbox-walk-*") // this machine's disk makes folders slowly
	if err != nil {
		dir = t.TempDir()
	} else {
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	for i := range 5000 {
		if err := os.Mkdir(filepath.Join(dir, "d"+itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	visited := 0
	count, err := Walk(context.Background(), os.DirFS(dir), ".", WalkLimits{Entries: 100}, func(string, fs.DirEntry, error) error {
		visited++
		return nil
	})
	if err == nil || err.Error() != "more than 100 entries (files, folders, links and every other entry count)" {
		t.Fatalf("%v", err)
	}
	if visited != 1 || count.Entries != 101 {
		t.Errorf("visited %d, counted %d", visited, count.Entries)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// CopyTree copies folders, files with their modes and links as links,
// leaves FIFOs out, and refuses a tree past its limits, saying which.
func TestCopyTreeKeepsToItsLimits(t *testing.T) {
	src := t.TempDir()
	writeTestFile(t, filepath.Join(src, "a", "run.sh"), "echo hi\n")
	if err := os.Chmod(filepath.Join(src, "a", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a/run.sh", filepath.Join(src, "link"))
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := CopyTree(context.Background(), dst, os.DirFS(src), WalkLimits{Entries: 10}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "a", "run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh: %v %v", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dst, "link")); err != nil || target != "a/run.sh" {
		t.Errorf("link: %q %v", target, err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "fifo")); err == nil {
		t.Error("the FIFO was copied")
	}
	err := CopyTree(context.Background(), t.TempDir(), os.DirFS(src), WalkLimits{Entries: 3})
	if !errors.Is(err, ErrWalkLimit) || !strings.Contains(err.Error(), "more than 3 entries") {
		t.Errorf("past the limit: %v", err)
	}
}
