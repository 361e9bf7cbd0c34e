package serve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history/session"
)

// handoutURL finds the address of step's handout on a learner's screen.
func handoutURL(t *testing.T, tm *terminal, step string) string {
	t.Helper()
	re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/h/[A-Za-z0-9_-]{22}/step-` + step + `\.html`)
	tm.waitFor("handout of step " + step + ": http://")
	u := re.FindString(tm.text())
	if u == "" {
		t.Fatalf("no handout address on the screen:\n%s", tail(tm.text(), 2000))
	}
	return u
}

// raw sends one request line as written (no client cleans the path) and
// returns the status and body.
func raw(t *testing.T, addr, method, path string) (int, http.Header, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, method+" "+path+" HTTP/1.1\r\nHost: room\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// With --handouts-http a served learner's X shows an address where they
// fetch the page; a learner's address opens their pages only, path tricks
// and other methods are refused, and the addresses end with the room.
func TestHandoutsOverHTTP(t *testing.T) {
	r := newRoom(t, Options{HandoutsHTTP: "127.0.0.1:0"})
	hl, err := net.Listen("tcp", r.opts.HandoutsHTTP)
	if err != nil {
		t.Fatal(err)
	}
	r.srv.handouts.listening(hl)
	go r.srv.ServeHandouts(hl)
	httpAddr := hl.Addr().String()

	a, b := r.learn("ada"), r.learn("bo")
	a.keys("\r")
	a.waitFor("press space to take it")
	stepTo(a, "ASSEMBLING_CONTEXT", "AWAITING_LLM_RESPONSE")
	a.keys("X") // the handout of step 2
	urlA := handoutURL(t, a, "2")
	b.keys("\r")
	b.waitFor("press space to take it")
	stepTo(b, "ASSEMBLING_CONTEXT", "AWAITING_LLM_RESPONSE", "CHECKING_POLICY")
	b.keys("X") // the handout of step 3
	urlB := handoutURL(t, b, "3")
	pathA, pathB := strings.TrimPrefix(urlA, "http://"+httpAddr), strings.TrimPrefix(urlB, "http://"+httpAddr)
	tokA, tokB := strings.Split(pathA, "/")[2], strings.Split(pathB, "/")[2]
	if tokA == tokB {
		t.Fatal("two learners share a token")
	}

	code, h, body := raw(t, httpAddr, "GET", pathA)
	if code != 200 || !strings.Contains(body, "<!DOCTYPE html>") || !strings.Contains(body, "step 2 of") {
		t.Fatalf("ada's handout: %d\n%s", code, tail(body, 500))
	}
	if h.Get("Content-Security-Policy") != handoutCSP || h.Get("X-Content-Type-Options") != "nosniff" ||
		h.Get("Referrer-Policy") != "no-referrer" || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("ada's handout headers: %v", h)
	}
	if code, _, body := raw(t, httpAddr, "GET", "/h/"+tokA+"/"); code != 200 || !strings.Contains(body, `href="step-2.html"`) || strings.Contains(body, "step-3") {
		t.Fatalf("ada's list: %d\n%s", code, body)
	}
	if code, _, _ := raw(t, httpAddr, "GET", pathB); code != 200 {
		t.Fatalf("bo's handout: %d", code)
	}

	// Bo's page beside it, by a link planted in ada's folder: not followed.
	folderA := filepath.Join(session.DataDir(filepath.Join(r.opts.StateDir, "serve", "learners", learnerID("user", "ada"), "session.jsonl")), "handouts")
	folderB := filepath.Join(session.DataDir(filepath.Join(r.opts.StateDir, "serve", "learners", learnerID("user", "bo"), "session.jsonl")), "handouts")
	if err := os.Symlink(filepath.Join(folderB, "step-3.html"), filepath.Join(folderA, "step-9.html")); err != nil {
		t.Fatal(err)
	}
	flip := []byte(tokA)
	flip[0] ^= 1
	for _, p := range []string{
		"/h/" + tokA + "/step-3.html", // bo's step, ada's token
		"/h/" + tokA + "/step-9.html", // the planted link
		"/h/" + tokA + "/../" + tokB + "/step-3.html",
		"/h/" + tokA + "/%2e%2e/" + tokB + "/step-3.html",
		"/h/" + tokA + "/..%2f" + tokB + "%2fstep-3.html",
		"/h/" + tokA + "/step-2.html/../../" + tokB + "/step-3.html",
		"/h/" + tokA + "//etc/passwd",
		"/h/" + tokA + "/step-2.html%00",
		"/h/" + tokA + "/step-2.html?download=1",
		"/h/" + tokA + "/step-0.html",
		"/h/" + tokA + "/../../../../session.jsonl",
		"/h/" + string(flip) + "/step-2.html",
		"/h//step-2.html",
		"/h/" + tokA[:20] + "/step-2.html",
		"/" + tokA + "/step-2.html",
		"/",
	} {
		if code, _, body := raw(t, httpAddr, "GET", p); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404\n%s", p, code, tail(body, 300))
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		if code, _, _ := raw(t, httpAddr, m, pathA); code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d, want 405", m, pathA, code)
		}
	}

	// The addresses end with the room.
	r.srv.Close()
	if c, err := net.DialTimeout("tcp", httpAddr, time.Second); err == nil {
		c.Close()
		t.Fatal("the handouts still answer after the room closed")
	}
}

// Without --handouts-http X writes the page on the server and says so, as
// before; no address is made up.
func TestServedHandoutWithoutHTTP(t *testing.T) {
	r := newRoom(t, Options{})
	a := r.learn("ada")
	a.keys("\r")
	a.waitFor("press space to take it")
	stepTo(a, "ASSEMBLING_CONTEXT")
	a.keys("X")
	a.waitFor("handout written:")
	if strings.Contains(a.text(), "http://") {
		t.Fatal("an address was shown without --handouts-http")
	}
}

// stepTo presses space once per state, waiting for each on the status bar.
func stepTo(tm *terminal, states ...string) {
	tm.t.Helper()
	for _, s := range states {
		tm.keys(" ")
		tm.waitFor("state " + s)
	}
}
