package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	bigLine := strings.Repeat("0123456789abcdef", 4) + "\n" // 65 bytes
	big := strings.Repeat(bigLine, 300<<10/len(bigLine)+1)
	// 'é' is two bytes; 5000 of them cross the 8 KiB sniffing boundary
	// mid-character, which must not make the file look binary.
	accents := strings.Repeat("é", 5000)
	ws := newTestWorkspace(t, map[string]string{
		"hello.py":       "print('hi')\n",
		"notes/todo.txt": "- a\n",
		"empty.txt":      "",
		"big.txt":        big,
		"binary.bin":     "ELF\x00\x01\x02",
		"latin1.txt":     "caf\xe9\n",
		"accents.txt":    accents,
		"late-bad.txt":   strings.Repeat("a", 9000) + "\xff" + "z",
	})
	outside := outsideDir(t, ws)
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(ws.Root(), "secret-link"))

	tests := []struct {
		name        string
		args        string
		want        string // exact content, if set
		contains    []string
		wantIsError bool
	}{
		{name: "text file", args: `{"path":"hello.py"}`, want: "print('hi')\n"},
		{name: "nested with dot slash", args: `{"path":"./notes/todo.txt"}`, want: "- a\n"},
		{name: "empty file", args: `{"path":"empty.txt"}`, want: "(empty.txt is empty)"},
		{name: "missing file", args: `{"path":"notes/x.txt"}`, want: "no such file: notes/x.txt", wantIsError: true},
		{name: "folder", args: `{"path":"notes"}`, wantIsError: true,
			contains: []string{"notes is a folder", "use list_files"}},
		{name: "binary file with NUL", args: `{"path":"binary.bin"}`, wantIsError: true,
			contains: []string{"binary.bin looks like a binary file (6 bytes)"}},
		{name: "invalid UTF-8", args: `{"path":"latin1.txt"}`, wantIsError: true,
			contains: []string{"latin1.txt looks like a binary file"}},
		{name: "multi-byte characters across the sniff boundary", args: `{"path":"accents.txt"}`, want: accents},
		{name: "invalid byte after the sniffed part is replaced", args: `{"path":"late-bad.txt"}`,
			want: strings.Repeat("a", 9000) + "\uFFFD" + "z"},
		{name: "big file is truncated with a note", args: `{"path":"big.txt"}`,
			contains: []string{
				big[:100],
				fmt.Sprintf("[... truncated: showing the first %d bytes of %d;", maxReadBytes, len(big)),
			}},
		{name: "outside by dot-dot", args: `{"path":"../outside/secret.txt"}`, wantIsError: true,
			contains: []string{"refused", "outside the workspace"}},
		{name: "outside by symlink", args: `{"path":"secret-link"}`, wantIsError: true,
			contains: []string{"refused", "outside the workspace"}},
		{name: "outside by absolute path", args: fmt.Sprintf(`{"path":%q}`, filepath.Join(outside, "secret.txt")), wantIsError: true,
			contains: []string{"refused", "outside the workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, NewReadFile(ws), tt.args)
			if res.IsError != tt.wantIsError {
				t.Errorf("IsError = %v, want %v (content %.200q)", res.IsError, tt.wantIsError, res.Content)
			}
			if tt.want != "" && res.Content != tt.want {
				t.Errorf("Content = %.300q, want %.300q", res.Content, tt.want)
			}
			for _, want := range tt.contains {
				if !strings.Contains(res.Content, want) {
					t.Errorf("Content %.300q does not contain %.300q", res.Content, want)
				}
			}
			if strings.Contains(res.Content, "top secret") {
				t.Error("the secret outside the workspace was read")
			}
		})
	}
}

func TestReadFileTruncatesAtCharacterBoundary(t *testing.T) {
	// One ASCII byte then 3-byte characters: the 256 KiB cut lands inside one.
	content := "a" + strings.Repeat("日", maxReadBytes/3+10)
	ws := newTestWorkspace(t, map[string]string{"wide.txt": content})
	res := run(t, NewReadFile(ws), `{"path":"wide.txt"}`)
	if res.IsError {
		t.Fatalf("unexpected error result: %.200q", res.Content)
	}
	text, note, found := strings.Cut(res.Content, "\n[... truncated")
	if !found {
		t.Fatalf("no truncation note in %.200q", res.Content[len(res.Content)-200:])
	}
	if strings.ContainsRune(text, '\uFFFD') {
		t.Error("the cut split a character: the text ends with a replacement character")
	}
	if !strings.HasPrefix(content, text) || len(text) > maxReadBytes || len(text) < maxReadBytes-3 {
		t.Errorf("returned %d bytes, want a prefix of the file just under %d bytes", len(text), maxReadBytes)
	}
	if !strings.Contains(note, fmt.Sprintf("of %d", len(content))) {
		t.Errorf("note %q does not give the full size %d", note, len(content))
	}
}

func TestReadFileNotRegular(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	fifo := filepath.Join(ws.Root(), "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Fatalf("cannot make a named pipe: %v", err)
	}
	res := run(t, NewReadFile(ws), `{"path":"pipe"}`) // must not block
	if !res.IsError || !strings.Contains(res.Content, "not a regular file") {
		t.Errorf("Run = %+v, want an error result saying it is not a regular file", res)
	}
}

func TestTrimPartialRune(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "ascii", in: "abc", want: "abc"},
		{name: "complete 3-byte char", in: "a日", want: "a日"},
		{name: "cut 3-byte char after 1 byte", in: "a" + "日"[:1], want: "a"},
		{name: "cut 3-byte char after 2 bytes", in: "a" + "日"[:2], want: "a"},
		{name: "cut 4-byte char after 3 bytes", in: "a" + "😀"[:3], want: "a"},
		{name: "empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(trimPartialRune([]byte(tt.in))); got != tt.want {
				t.Errorf("trimPartialRune(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestReadFileThroughAFile(t *testing.T) {
	// A path that treats a file as a folder fails with the OS's own reason,
	// the same path every unreadable file takes (a permission test cannot
	// fail here: CI runs as root, which reads anything).
	ws := newTestWorkspace(t, map[string]string{"plain.txt": "x"})
	res := run(t, NewReadFile(ws), `{"path":"plain.txt/inner"}`)
	if !res.IsError || !strings.Contains(res.Content, "not a directory") {
		t.Errorf("Run = %+v, want an error result saying not a directory", res)
	}
}
