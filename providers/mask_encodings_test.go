package providers

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const encKey = "sk-proj-Zq8xV3mN7pL2wR9tK4yB6cD1fG5hJ0aQ"

// leaks reports which pieces of key (five characters or more) an attacker
// gets back from masked output: the text itself, its letters and digits
// (separators dropped), and what the real decoding tool makes of it.
func leaks(t *testing.T, key string, masked []byte, decoders ...[]string) []string {
	t.Helper()
	var found []string
	look := func(where string, b []byte) {
		for n := len(key); n >= 5; n-- {
			for i := 0; i+n <= len(key); i++ {
				if bytes.Contains(b, []byte(key[i:i+n])) || n >= 8 && bytes.Contains(alnum(b), alnum([]byte(key[i:i+n]))) {
					found = append(found, fmt.Sprintf("%s holds %q", where, key[i:i+n]))
					return
				}
			}
		}
	}
	look("the output", masked)
	for _, d := range decoders {
		cmd := exec.Command(d[0], d[1:]...)
		cmd.Stdin = bytes.NewReader(masked)
		out, _ := cmd.Output() // garbage in: whatever comes out is what counts
		look(strings.Join(d, " "), out)
	}
	return found
}

// Issue 19 item 5: a key is masked in every spelling a shell's tools give
// it — hex dumps, od -c, base32, base64 across the 76-column break, a
// separator between every character — at every alignment, on its own and
// inside JSON (a tool result in the session file), and an attacker who
// decodes what is left with the real tool gets no piece of it.
func TestMaskerFindsTheKeyInEveryEncoding(t *testing.T) {
	m := NewMasker(encKey)
	cases := []struct {
		name     string
		cmd      string
		decoders [][]string
	}{
		{"cat", "cat F", nil},
		{"xxd", "xxd F", [][]string{{"xxd", "-r"}}},
		{"xxd -g1 -c8", "xxd -g1 -c8 F", [][]string{{"xxd", "-r"}}},
		{"xxd -p", "xxd -p F", [][]string{{"xxd", "-r", "-p"}}},
		{"xxd -u", "xxd -u F", [][]string{{"xxd", "-r"}}},
		{"hexdump -C", "hexdump -C F", nil},
		{"hexdump", "hexdump F", nil},
		{"od -c", "od -c F", nil},
		{"od -An -c", "od -An -c F", nil},
		{"od -x", "od -x F", nil},
		{"od -t x1", "od -t x1 F", nil},
		{"od -An -tx1", "od -An -tx1 F", [][]string{{"xxd", "-r", "-p"}}},
		{"base64", "base64 F", [][]string{{"base64", "-d", "-i"}}},
		{"base64 -w0", "base64 -w0 F", [][]string{{"base64", "-d", "-i"}}},
		{"base64 -w 10", "base64 -w 10 F", [][]string{{"base64", "-d", "-i"}}},
		{"base32", "base32 F", [][]string{{"base32", "-d", "-i"}}},
		{"sed s/./&-/g", "sed 's/./&-/g' F", nil},
		{"sed s/./& /g", "sed 's/./& /g' F", nil},
		{"fold -w1", "fold -w1 F", nil},
		{"one line of dots", "tr -d '\\n' < F | sed 's/./&./g'", nil},
		{"hex on one line", "od -An -tx1 -v F | tr -d ' \\n'", [][]string{{"xxd", "-r", "-p"}}},
	}
	// Offsets 0 to 4 put the key at every base64 and base32 alignment;
	// 40 and 60 make base64's 76-column break and the dumps' 16-byte lines
	// cut through it.
	for _, lead := range []int{0, 1, 2, 3, 4, 40, 60} {
		file := filepath.Join(t.TempDir(), "F")
		body := strings.Repeat("#", lead) + "\nOPENAI_KEY=" + encKey + "\nDEBUG=1\n"
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/lead%d", tc.name, lead), func(t *testing.T) {
				out, err := exec.Command("sh", "-c", strings.ReplaceAll(tc.cmd, " F", " "+file)).Output()
				if err != nil {
					t.Fatalf("%s: %v", tc.cmd, err)
				}
				masked := m.MaskBytes(out)
				if l := leaks(t, encKey, masked, tc.decoders...); len(l) > 0 {
					t.Fatalf("%s leaks: %v\n--- output\n%s\n--- masked\n%s", tc.cmd, l, out, masked)
				}
				if !bytes.Contains(masked, []byte(RedactedMark)) {
					t.Fatalf("nothing masked in\n%s", out)
				}
				doc, _ := json.Marshal(map[string]string{"content": string(out)})
				for level := 1; level <= 2; level++ {
					mj := m.MaskJSON(doc)
					if !json.Valid(mj) {
						t.Fatalf("masking broke the JSON: %s", mj)
					}
					inner := mj
					for range level {
						var back map[string]string
						json.Unmarshal(inner, &back)
						inner = []byte(back["content"])
					}
					if l := leaks(t, encKey, inner, tc.decoders...); len(l) > 0 {
						t.Fatalf("%s inside JSON (level %d) leaks: %v\n%s", tc.cmd, level, l, mj)
					}
					doc, _ = json.Marshal(map[string]string{"content": string(doc)})
				}
			})
		}
	}
}

// JSON's \u escapes, alone or in a string inside a string (a request body
// kept as text), hide no key.
func TestMaskerFindsUnicodeEscapedKeys(t *testing.T) {
	m := NewMasker(encKey)
	var esc strings.Builder
	for _, r := range encKey {
		fmt.Fprintf(&esc, `\u%04x`, r)
	}
	inner, _ := json.Marshal(map[string]string{"text": "key: " + esc.String()})
	outer, _ := json.Marshal(map[string]string{"body": string(inner)})
	upper := strings.ReplaceAll(strings.ToUpper(esc.String()), `\U`, `\u`)
	for _, in := range []string{`{"a":"` + esc.String() + `"}`, string(inner), string(outer), `{"k":"` + upper + `"}`} {
		out := m.MaskJSON([]byte(in))
		if strings.Contains(strings.ToLower(string(out)), esc.String()[12:40]) || !strings.Contains(string(out), RedactedMark) || !json.Valid(out) {
			t.Errorf("not masked: %s -> %s", in, out)
		}
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(encKey))
	if out := m.Mask(`"\u0022` + b64 + `"`); strings.Contains(out, b64[4:20]) {
		t.Errorf("base64 in quotes: %s", out)
	}
}

// A key split across the events of a stream — the model wrote it in two
// chunks — is masked in both: the reassembled text is what is searched.
func TestMaskerMasksAKeySplitAcrossStreamChunks(t *testing.T) {
	m := NewMasker(encKey)
	cut := 11
	chunk := func(content string, done bool) []byte {
		b, _ := json.Marshal(map[string]any{"model": "llama3.1:8b", "created_at": "2026-01-01T00:00:00Z", "message": map[string]string{"role": "assistant", "content": content}, "done": done})
		return append(b, '\n')
	}
	x := Exchange{
		Chunks: []Chunk{{Data: chunk("your key is "+encKey[:cut], false)}, {Data: chunk(encKey[cut:]+" ok", false)}, {Data: chunk("", true)}},
	}
	for _, c := range x.Chunks {
		x.ResponseBody = append(x.ResponseBody, c.Data...)
	}
	got := m.Exchange(x)
	for i, c := range got.Chunks {
		if !json.Valid(bytes.TrimSpace(c.Data)) {
			t.Fatalf("chunk %d is no longer JSON: %s", i, c.Data)
		}
	}
	for _, b := range [][]byte{got.ResponseBody, got.Chunks[0].Data, got.Chunks[1].Data} {
		if bytes.Contains(b, []byte(encKey[:cut])) || bytes.Contains(b, []byte(encKey[cut:cut+10])) {
			t.Fatalf("a piece of the key is left: %s", b)
		}
	}
	if !bytes.Contains(got.Chunks[0].Data, []byte(RedactedMark)) || !bytes.Contains(got.Chunks[1].Data, []byte(RedactedMark)) {
		t.Fatalf("each piece should show where its part was:\n%s%s", got.Chunks[0].Data, got.Chunks[1].Data)
	}
	// Gemini's SSE the same way.
	sse := func(text string) []byte {
		return []byte(`data: {"candidates":[{"content":{"parts":[{"text":"` + text + `"}],"role":"model"},"index":0}]}` + "\r\n\r\n")
	}
	y := Exchange{Chunks: []Chunk{{Data: sse("k=" + encKey[:20])}, {Data: sse(encKey[20:])}}}
	for _, c := range m.Exchange(y).Chunks {
		if bytes.Contains(c.Data, []byte(encKey[:15])) || bytes.Contains(c.Data, []byte(encKey[20:35])) {
			t.Fatalf("SSE piece left: %s", c.Data)
		}
	}
}

// Ordinary text is left alone: no spelling of the key is found where
// there is none.
func TestMaskerLeavesOrdinaryTextAlone(t *testing.T) {
	m := NewMasker(encKey)
	for _, s := range []string{
		"hello world, the quick brown fox",
		"00000000: 6865 6c6c 6f0a                           hello.\n",
		`{"model":"llama3.1:8b","message":{"content":"sk-proj-other"}}`,
		strings.Repeat("a-b-c ", 100),
		`C:\new\table %41%42 \x41`,
	} {
		if got := m.Mask(s); got != s {
			t.Errorf("changed %q to %q", s, got)
		}
	}
	if got := NewMasker().Mask("x"); got != "x" {
		t.Fatal("an empty Masker changed text")
	}
}

// A conversation's request bodies are masked as if each were searched
// whole: a secret in the part shared with the last body stays masked, one
// in the new part is found, and so is one that starts in the shared part
// and ends in the new one.
func TestConversationMasksEachBodyWhole(t *testing.T) {
	m := NewMasker(encKey)
	c := m.Conversation()
	body := `{"contents":[{"text":"` + strings.Repeat("hello ", 5000)
	steps := []string{
		body + `"}]}`,
		body + ` key ` + encKey + `"}]}`,
		body + ` key ` + encKey + ` more ` + strings.Repeat("x", 100) + `"}]}`,
		body + ` key ` + encKey + ` more ` + strings.Repeat("x", 100) + " " + encKey[:20],
		body + ` key ` + encKey + ` more ` + strings.Repeat("x", 100) + " " + encKey + `"}]}`,
		`{"other":"` + encKey + `"}`,
	}
	for i, s := range steps {
		got, want := c.Mask([]byte(s)), m.MaskBytes([]byte(s))
		if string(got) != string(want) {
			t.Fatalf("body %d: masked differently from a whole search", i)
		}
		if strings.Contains(string(got), encKey) {
			t.Fatalf("body %d keeps the key", i)
		}
	}
}
