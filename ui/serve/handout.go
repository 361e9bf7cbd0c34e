package serve

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/glassbox-dev/glassbox/ui/lang"
)

// A served learner's X writes the handout on the server, where they cannot
// reach it, and the room gives learners no shell, no SFTP and no port
// forward to fetch it with. With --handouts-http the server also answers
// HTTP, read-only: each learner's pages are at an address with a token of
// their own (128 random bits, made when they first connect, forgotten when
// the room stops), shown only on their screen. A token opens only its
// learner's handouts folder, and only files named like a handout
// (step-N.html) in it; anything else, and any other method than GET or
// HEAD, is refused.

// handoutCSP is the policy every page already carries in its <meta>: no
// script, nothing loaded from anywhere, its own inline styles only.
const handoutCSP = "default-src 'none'; style-src 'unsafe-inline'"

// handoutName is the only file name the desk serves.
var handoutName = regexp.MustCompile(`^step-[1-9][0-9]{0,8}\.html$`)

// handoutDesk hands out the learners' pages over HTTP.
type handoutDesk struct {
	mu      sync.Mutex
	folders map[[sha256.Size]byte]string // hash of a token → that learner's handouts folder
	tokens  map[string]string            // learner id → their token
	port    string                       // where the desk listens, once it does
	srv     *http.Server
	closed  bool
	lang    lang.Lang
}

func newHandoutDesk(l lang.Lang) *handoutDesk {
	return &handoutDesk{lang: l, folders: map[[sha256.Size]byte]string{}, tokens: map[string]string{}}
}

// link is learner id's Room.Handout: the address of a page X wrote into
// folder, on the host the learner reached the room at.
func (d *handoutDesk) link(id, folder, host string) func(path string) (string, error) {
	d.mu.Lock()
	tok := d.tokens[id]
	if tok == "" {
		b := make([]byte, 16) // 128 bits: unguessable, and short enough to copy
		rand.Read(b)          // never fails (Go 1.24+)
		tok = base64.RawURLEncoding.EncodeToString(b)
		d.tokens[id] = tok
		d.folders[sha256.Sum256([]byte(tok))] = folder
	}
	d.mu.Unlock()
	return func(path string) (string, error) {
		if filepath.Dir(path) != folder || !handoutName.MatchString(filepath.Base(path)) {
			return "", errors.New(d.lang.F("%s is not one of your handouts", filepath.Base(path)))
		}
		d.mu.Lock()
		port := d.port
		d.mu.Unlock()
		if port == "" {
			return "", errors.New(d.lang.T("the handouts server is not listening"))
		}
		return "http://" + net.JoinHostPort(host, port) + "/h/" + tok + "/" + filepath.Base(path), nil
	}
}

// listening notes ln's port: the addresses name it.
func (d *handoutDesk) listening(ln net.Listener) {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	d.mu.Lock()
	d.port = port
	d.mu.Unlock()
}

func (d *handoutDesk) portNow() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.port
}

// serve answers HTTP on ln until close.
func (d *handoutDesk) serve(ln net.Listener) error {
	d.listening(ln)
	srv := &http.Server{Handler: d, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute, MaxHeaderBytes: 8 << 10}
	d.mu.Lock()
	closed := d.closed
	d.srv = srv
	d.mu.Unlock()
	if closed {
		return ln.Close()
	}
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (d *handoutDesk) close() {
	d.mu.Lock()
	srv := d.srv
	d.closed = true
	d.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// ServeHTTP: GET /h/TOKEN/ lists the learner's handouts, GET
// /h/TOKEN/step-N.html is one of them; everything else is not found.
func (d *handoutDesk) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", handoutCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer") // the token is in the address
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, d.lang.T("glassbox handouts are read-only"), http.StatusMethodNotAllowed)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/h/")
	tok, name, _ := strings.Cut(rest, "/")
	if !ok || tok == "" || r.URL.RawQuery != "" {
		d.notFound(w)
		return
	}
	d.mu.Lock()
	folder, known := d.folders[sha256.Sum256([]byte(tok))]
	d.mu.Unlock()
	switch {
	case !known:
		d.notFound(w)
	case name == "":
		d.index(w, folder)
	case handoutName.MatchString(name):
		d.page(w, r, folder, name)
	default:
		d.notFound(w)
	}
}

func (d *handoutDesk) notFound(w http.ResponseWriter) {
	http.Error(w, d.lang.T("no such handout (the address is shown on your glass box when you press X; it lasts while the room is served)"), http.StatusNotFound)
}

// page sends one handout, opened inside the learner's folder only (a link
// out of it is not followed).
func (d *handoutDesk) page(w http.ResponseWriter, r *http.Request, folder, name string) {
	root, err := os.OpenRoot(folder)
	if err != nil {
		d.notFound(w)
		return
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		d.notFound(w)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		d.notFound(w)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	http.ServeContent(w, r, name, fi.ModTime(), f)
}

// index lists the learner's handouts, newest step last.
func (d *handoutDesk) index(w http.ResponseWriter, folder string) {
	var names []string
	if entries, err := os.ReadDir(folder); err == nil {
		for _, e := range entries {
			if e.Type().IsRegular() && handoutName.MatchString(e.Name()) {
				names = append(names, e.Name())
			}
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	title := html.EscapeString(d.lang.T("Your glassbox handouts"))
	fmt.Fprintf(&b, `<!DOCTYPE html><html lang="%s"><head><meta charset="utf-8"><title>%s</title></head><body><h1>%s</h1>`, d.lang, title, title)
	if len(names) == 0 {
		fmt.Fprintf(&b, "<p>%s</p>", html.EscapeString(d.lang.T("None yet: press X in your glass box to write the step on screen.")))
	}
	b.WriteString("<ul>")
	for _, n := range names {
		fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, html.EscapeString(n), html.EscapeString(n))
	}
	fmt.Fprintf(&b, "</ul><p>%s</p></body></html>", html.EscapeString(d.lang.T("These pages last while the room is served: save the ones you want to keep.")))
	io.WriteString(w, b.String())
}

// ServeHandouts answers the learners' handout addresses on ln until Close
// (--handouts-http).
func (s *Server) ServeHandouts(ln net.Listener) error {
	if s.handouts == nil {
		return errors.New("serve: no --handouts-http")
	}
	return s.handouts.serve(ln)
}
