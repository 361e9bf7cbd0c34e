package main

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
)

// Issue 19 item 5, end to end: a live Llama (an in-process Ollama speaking
// the documented NDJSON stream) has glassbox run a command that prints a
// secret in some encoding, then write a file (so the workspace, .env
// included, is copied into the session's blobs), then answers with the key
// split across stream chunks. No byte of the secret may be in the session
// file, its exchanges, its blobs, the trace, the cassette, what glassbox
// printed, or what went back to the model.

const (
	e2eKey  = "sk-live-Xq7Wm2Rb9Tz4Kp6Nd3Hs8Jv5" // OPENAI_KEY in the environment
	e2ePass = "correct-Horse-battery-9staple"    // DB_PASS in the workspace's .env
)

// fakeOllama answers /api/chat: a command first, then a file write, then
// an answer that quotes the key across three chunks. It keeps every
// request body it was sent.
type fakeOllama struct {
	command string
	mu      sync.Mutex
	bodies  []string
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	if r.URL.Path != "/api/chat" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	tools := 0
	for _, m := range req.Messages {
		if m.Role == "tool" {
			tools++
		}
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	line := func(msg map[string]any, done bool) {
		rec := map[string]any{"model": "llama3.1:8b", "created_at": "2026-11-25T10:00:00Z", "message": msg, "done": done}
		if done {
			rec["done_reason"], rec["prompt_eval_count"], rec["eval_count"] = "stop", 10, 5
		}
		b, _ := json.Marshal(rec)
		w.Write(append(b, '\n'))
		w.(http.Flusher).Flush()
	}
	call := func(name string, args map[string]any) {
		line(map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"function": map[string]any{"name": name, "arguments": args}}}}, false)
	}
	switch tools {
	case 0:
		call("execute_command", map[string]any{"command": f.command})
	case 1:
		call("write_file", map[string]any{"path": "notes.txt", "content": "done\n"})
	default:
		for _, piece := range []string{"The key is ", e2eKey[:9], e2eKey[9:20], e2eKey[20:] + " and that is all."} {
			line(map[string]any{"role": "assistant", "content": piece}, false)
		}
	}
	line(map[string]any{"role": "assistant", "content": ""}, true)
}

// spellings are the windows of a secret's encodings that must not be
// found anywhere: pieces of the value itself, of its hex, and of its base64
// and base32 at every alignment.
func spellings(secret string) []string {
	var encs []string
	encs = append(encs, secret, hex.EncodeToString([]byte(secret)))
	for lead := range 3 {
		e := base64.StdEncoding.EncodeToString(append(make([]byte, lead), secret...))
		encs = append(encs, e[3:len(e)-4])
	}
	for lead := range 5 {
		e := base32.StdEncoding.EncodeToString(append(make([]byte, lead), secret...))
		encs = append(encs, e[8:len(e)-8])
	}
	var out []string
	for _, e := range encs {
		a := alnumOnly(e)
		for i := 0; i+12 <= len(a); i += 3 {
			out = append(out, a[i:i+12])
		}
	}
	return out
}

func alnumOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// leaked says where in text a spelling of secret is, or "".
func leaked(text, secret string) string {
	plain := strings.NewReplacer(`\\n`, " ", `\n`, " ", `\\"`, " ", `\"`, " ", `\\`, " ", `\t`, " ").Replace(text)
	for _, t := range []string{alnumOnly(text), alnumOnly(plain)} {
		for _, s := range spellings(secret) {
			if strings.Contains(t, s) {
				return s
			}
		}
	}
	return ""
}

func TestNoSecretIsStoredOrShownInAnyEncoding(t *testing.T) {
	for _, command := range []string{
		"cat secrets.txt",
		"xxd secrets.txt",
		"od -c secrets.txt",
		"base32 secrets.txt",
		"base64 secrets.txt", // the key straddles the 76-column break
		"sed 's/./&-/g' secrets.txt",
		"hexdump -C secrets.txt",
	} {
		t.Run(command, func(t *testing.T) {
			isolate(t)
			t.Setenv("OPENAI_KEY", e2eKey)
			srv := httptest.NewServer(&fakeOllama{command: command})
			t.Cleanup(srv.Close)
			t.Setenv("OLLAMA_HOST", srv.URL)
			ws, out := t.TempDir(), t.TempDir()
			files := map[string]string{
				// 40 bytes before the key: base64's first 57-byte line ends inside it.
				"secrets.txt": strings.Repeat("#", 29) + "\nOPENAI_KEY=" + e2eKey + "\n",
				".env":        "DB_PASS=" + e2ePass + "\n",
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			sess, cassette, trace := filepath.Join(out, "s.jsonl"), filepath.Join(out, "c.cassette"), filepath.Join(out, "t.jsonl")
			code, stdout, stderr := runIn(t, "", "run", "--json", "--live", "--provider", "llama", "--tool-mode", "native", "--yes",
				"--workspace", ws, "--session", sess, "--record", cassette, "--trace", trace, "show me the secrets")
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if !strings.Contains(stdout, "[REDACTED]") {
				t.Fatalf("nothing was masked:\n%s", stdout)
			}
			places := map[string]string{"stdout": stdout, "stderr": stderr}
			for _, p := range []string{sess, cassette, trace} {
				b, _ := os.ReadFile(p)
				places[p] = string(b)
			}
			filepath.WalkDir(session.DataDir(sess), func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					b, _ := os.ReadFile(p)
					places[p] = string(b)
				}
				return nil
			})
			srvBodies := srv.Config.Handler.(*fakeOllama).bodies
			if len(srvBodies) < 3 {
				t.Fatalf("the model was called %d times", len(srvBodies))
			}
			for i, b := range srvBodies {
				places[fmt.Sprintf("request %d to the model", i+1)] = b
			}
			for where, text := range places {
				for _, secret := range []string{e2eKey, e2ePass} {
					if s := leaked(text, secret); s != "" {
						t.Errorf("%s holds %q, a piece of a secret", where, s)
					}
				}
			}
		})
	}
}

// Every variable whose name or value looks secret leaves glassbox's own
// environment block (/proc/PID/environ, which a command may read), not only
// the names the old filter knew: OPENAI_KEY, DB_PASS, MYSQL_PWD, GH_PAT,
// STRIPE_KEY and a DATABASE_URL with a password. On the built binary,
// read while it waits for the person.
func TestWithheldSecretsLeaveGlassboxsEnviron(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildGlassbox(t)
	isolate(t)
	secrets := map[string]string{
		"OPENAI_KEY": "sk-op3nai-0123456789abcdef", "DB_PASS": "hunter2hunter2", "MYSQL_PWD": "s3cr3t-mysql",
		"GH_PAT": "github_pat_11ABCDEFG0123456789", "STRIPE_KEY": "rk_live_abcdefghij0123456789",
		"DATABASE_URL": "postgres://app:Pa55-w0rd-x@db.internal/app",
	}
	cmd := exec.Command(bin, "run", "--offline", "--lesson", "run-command")
	cmd.Dir = t.TempDir()
	cmd.Env = os.Environ()
	for k, v := range secrets {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, _ := cmd.StdinPipe() // never answered: glassbox waits at the confirmation
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "allow?") {
		if time.Now().After(deadline) {
			t.Fatalf("glassbox never asked:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	own, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"OPENAI_KEY": secrets["OPENAI_KEY"], "DB_PASS": secrets["DB_PASS"], "MYSQL_PWD": secrets["MYSQL_PWD"],
		"GH_PAT": secrets["GH_PAT"], "STRIPE_KEY": secrets["STRIPE_KEY"], "DATABASE_URL": "Pa55-w0rd-x"} {
		if strings.Contains(string(own), v) {
			t.Errorf("glassbox's /proc/PID/environ holds %s", name)
		}
	}
}

// syncBuffer is a strings.Builder safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
