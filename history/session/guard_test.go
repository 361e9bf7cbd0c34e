package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The key is made once, readable by its owner only, and never replaced;
// a key others can read is refused.
func TestLoadKeyIsPrivateAndStable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "glassbox")
	k1, err := LoadKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v %v", st, err)
	}
	k2, err := LoadKey(dir)
	if err != nil || !bytes.Equal(k1.k, k2.k) {
		t.Fatalf("the key changed between runs: %v", err)
	}
	os.Chmod(filepath.Join(dir, KeyFile), 0o644)
	if _, err := LoadKey(dir); err == nil || !strings.Contains(err.Error(), "only its owner") {
		t.Fatalf("a readable key was used: %v", err)
	}
}

// A seal holds for the record it was made for and nothing else: another
// checkpoint, another step, another session, another user's key.
func TestSealsBindRecordSessionAndKey(t *testing.T) {
	k, _ := LoadKey(t.TempDir())
	other, _ := LoadKey(t.TempDir())
	h := Header{Started: time.Date(2026, 11, 25, 10, 0, 0, 123, time.UTC), Request: "hi"}
	r := Record{Kind: KindStep, Seq: 3, Checkpoint: []byte(`{"seq":3,"grants":[{"name":"execute_command","args":{"command":"ls"}}]}`)}
	r.Seal = k.seal(h, r)
	if !k.Sealed(h, r) {
		t.Fatal("a genuine seal does not hold")
	}
	forged := r
	forged.Checkpoint = []byte(`{"seq":3,"grants":[{"name":"execute_command","args":{"command":"rm -rf ~"}}]}`)
	moved := r
	moved.Seq = 4
	h2 := h
	h2.Started = h.Started.Add(time.Second)
	for name, ok := range map[string]bool{
		"another checkpoint": k.Sealed(h, forged),
		"another step":       k.Sealed(h, moved),
		"another session":    k.Sealed(h2, r),
		"another user's key": other.Sealed(h, r),
		"no key":             (*Key)(nil).Sealed(h, r),
	} {
		if ok {
			t.Errorf("the seal holds for %s", name)
		}
	}
}

type holdsWord string

func (w holdsWord) MaskJSON(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(w), []byte("[REDACTED]"))
}
func (w holdsWord) Holds(b []byte) bool { return bytes.Contains(b, []byte(w)) }

// With a guard, every line is masked (the header's request too) and a file
// that holds a secret is never copied into blobs/: a fork that would need
// it says why it cannot put it back.
func TestGuardMasksLinesAndWithholdsSecretFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := Create(path, Header{Started: time.Now(), Runs: []RunInfo{{Provider: "gemini"}}})
	if err != nil {
		t.Fatal(err)
	}
	w.Guard(nil, holdsWord("hunter2-secret"))
	if err := w.Write(Record{Kind: KindEdit, System: "the password is hunter2-secret"}); err != nil {
		t.Fatal(err)
	}
	env := []byte("DB_PASS=hunter2-secret\n")
	h, err := w.Blobs().Put(env)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := w.Blobs().Put([]byte("print('hi')\n"))
	w.Close()
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte("hunter2")) || !bytes.Contains(data, []byte("[REDACTED]")) {
		t.Fatalf("the session line is not masked:\n%s", data)
	}
	filepath.Walk(DataDir(path), func(p string, info os.FileInfo, err error) error {
		if b, _ := os.ReadFile(p); info != nil && !info.IsDir() && bytes.Contains(b, []byte("hunter2")) {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
	b := OpenBlobs(path)
	if b.Has(h) || !b.Withheld(h) {
		t.Fatal("the .env was kept")
	}
	if _, err := b.Get(h); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("Get = %v, want it to say the copy was not kept", err)
	}
	if !b.Has(plain) {
		t.Fatal("an ordinary file was not kept")
	}
}

// Glassboxes that start at the same moment (a served room's learners
// arriving together) all get the one key, whole: none reads it half
// written, and none seals with a key the others do not have.
func TestLoadKeyRacingStartsAgree(t *testing.T) {
	for round := range 20 {
		dir := filepath.Join(t.TempDir(), "glassbox")
		const n = 16
		keys := make([]*Key, n)
		errs := make([]error, n)
		start := make(chan struct{})
		done := make(chan int)
		for i := range n {
			go func() {
				<-start
				keys[i], errs[i] = LoadKey(dir)
				done <- i
			}()
		}
		close(start)
		for range n {
			<-done
		}
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d: start %d: %v", round, i, errs[i])
			}
			if !bytes.Equal(keys[i].k, keys[0].k) {
				t.Fatalf("round %d: start %d got another key", round, i)
			}
		}
		left, _ := filepath.Glob(filepath.Join(dir, ".approvals-*"))
		if len(left) > 0 {
			t.Fatalf("round %d: temporary key files left behind: %v", round, left)
		}
	}
}
