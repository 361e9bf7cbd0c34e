//go:build linux

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// raceRounds is how many calls of each file tool race the swapper.
const raceRounds = 3000

// TestFileToolsWinTheRace runs read_file, write_file and list_files while a
// second goroutine swaps a file and a folder of the workspace with symbolic
// links to outside it, atomically (renameat2 with RENAME_EXCHANGE), as fast
// as it can: the attack of a helper process left running by an earlier
// command. Whatever the interleaving, no tool may read, list or write
// anything outside, and no temporary file may appear there.
//
// With a check-then-open implementation (resolve the path, then open it by
// name) many calls land outside: against the first version of the tools,
// 506 reads, 416 writes and 839 listings of 3,000 each escaped.
func TestFileToolsWinTheRace(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"f": "inside\n", "d/keep.txt": "inside\n"})
	root := ws.Root()
	outside := outsideDir(t, ws) // holds secret.txt: "top secret"
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "flink"))
	symlink(t, outside, filepath.Join(root, "dlink"))

	exchange := func(a, b string) {
		_ = unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, a), unix.AT_FDCWD, filepath.Join(root, b), unix.RENAME_EXCHANGE)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "f"), unix.AT_FDCWD, filepath.Join(root, "flink"), unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2 RENAME_EXCHANGE is not available here: %v", err)
	}
	exchange("f", "flink") // back as it was

	stop := make(chan struct{})
	var swaps atomic.Int64
	var swapper sync.WaitGroup
	swapper.Add(1)
	go func() {
		defer swapper.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			exchange("f", "flink")
			exchange("d", "dlink")
			swaps.Add(1)
		}
	}()

	var (
		reads, readsInside, readEscapes    int
		writes, writesInside, writeEscapes int
		lists, listsInside, listEscapes    int
		caughtByRoot                       int // refusals by os.Root, after the path had been checked
	)
	read, write, list := NewReadFile(ws), NewWriteFile(ws), NewListFiles(ws)
	for i := range raceRounds {
		res := run(t, read, `{"path":"f"}`)
		reads++
		caughtByRoot += strings.Count(res.Content, "now leads outside the workspace")
		if strings.Contains(res.Content, "top secret") {
			readEscapes++
		} else if !res.IsError {
			readsInside++
		}

		res = run(t, write, fmt.Sprintf(`{"path":"d/x","content":"round %d"}`, i))
		writes++
		caughtByRoot += strings.Count(res.Content, "now leads outside the workspace")
		if !res.IsError {
			writesInside++
		}
		if _, err := os.Lstat(filepath.Join(outside, "x")); err == nil {
			writeEscapes++
			_ = os.Remove(filepath.Join(outside, "x"))
		}

		args := `{"path":"d"}`
		if i%2 == 1 {
			args = `{"recursive":true}`
		}
		res = run(t, list, args)
		lists++
		caughtByRoot += strings.Count(res.Content, "now leads outside the workspace")
		if strings.Contains(res.Content, "secret.txt") {
			listEscapes++
		} else if !res.IsError {
			listsInside++
		}
	}
	close(stop)
	swapper.Wait()

	t.Logf("%d swaps; read_file: %d calls, %d read inside, %d escapes; write_file: %d calls, %d written, %d escapes; list_files: %d calls, %d listed, %d escapes; %d refusals by os.Root after the check had passed",
		swaps.Load(), reads, readsInside, readEscapes, writes, writesInside, writeEscapes, lists, listsInside, listEscapes, caughtByRoot)
	if readEscapes+writeEscapes+listEscapes > 0 {
		t.Errorf("escapes: read_file %d, write_file %d, list_files %d; want none", readEscapes, writeEscapes, listEscapes)
	}
	if readsInside == 0 || writesInside == 0 || listsInside == 0 {
		t.Errorf("some tool never succeeded (read %d, write %d, list %d): the test did not exercise the normal path", readsInside, writesInside, listsInside)
	}
	if caughtByRoot == 0 {
		t.Error("os.Root never had to refuse a path that had passed the check: the race was not exercised")
	}
	if swaps.Load() < raceRounds {
		t.Errorf("only %d swaps during %d rounds: the race was hardly run", swaps.Load(), raceRounds)
	}

	// Nothing was left outside, and no temporary file anywhere.
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "secret.txt" {
			t.Errorf("the folder outside the workspace holds %s", e.Name())
		}
	}
	if got := readTestFile(t, filepath.Join(outside, "secret.txt")); got != "top secret\n" {
		t.Errorf("secret.txt outside was changed to %q", got)
	}
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("a temporary file was left behind: %s", path)
		}
		return nil
	})
}
