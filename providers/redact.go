package providers

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// RedactedMark replaces every secret in a recorded exchange.
const RedactedMark = "[REDACTED]"

// minSecretLen is the shortest literal secret the redactor masks. Masking a
// one- or two-letter "secret" would garble every payload; no real API key is
// that short.
const minSecretLen = 4

// isSensitiveHeader reports whether a header carries credentials by its name
// alone, whatever its value: the well-known credential headers, and any
// header whose name mentions a key, token, secret or auth.
func isSensitiveHeader(name string) bool {
	lower := strings.ToLower(name)
	switch lower {
	case "x-goog-api-key", "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return containsAny(lower, "key", "token", "secret", "auth")
}

// isSensitiveParam reports whether a URL query parameter carries credentials
// by its name alone.
func isSensitiveParam(name string) bool {
	return containsAny(strings.ToLower(name), "key", "token", "secret")
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// redactor masks credentials in the copy of an exchange that glassbox keeps.
// It never touches the bytes the SDK sends or receives.
type redactor struct {
	secrets []string // literal values to mask, longest first
}

func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen {
			continue
		}
		for _, v := range append([]string{s}, encodings(s)...) {
			if !slices.Contains(r.secrets, v) {
				r.secrets = append(r.secrets, v)
			}
		}
	}
	// Longest first, so a secret that contains another is masked whole.
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// minEncodedLen is the shortest secret whose encodings are masked too:
// the encodings of a shorter one would match ordinary text by chance.
const minEncodedLen = 8

// encodings are the common spellings of secret s that a command or a
// server could print instead of s itself: hex (both cases), URL escaping,
// and base64 in the standard and URL alphabets. A key base64-encoded
// inside a larger block (base64 /proc/$PPID/environ) is spelled one of
// three ways, by its offset modulo 3; for each, the characters that depend
// on the key's bytes alone are masked, with or without padding.
func encodings(s string) []string {
	if len(s) < minEncodedLen {
		return nil
	}
	out := []string{hex.EncodeToString([]byte(s)), strings.ToUpper(hex.EncodeToString([]byte(s)))}
	for _, esc := range []string{url.QueryEscape(s), url.PathEscape(s)} {
		if esc != s {
			out = append(out, esc)
		}
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for lead := range 3 {
			b := enc.EncodeToString(append(make([]byte, lead), s...))
			skip := []int{0, 2, 3}[lead] // characters that hold the bytes before
			if (lead+len(s))%3 != 0 {
				b = b[:len(b)-1] // the last character also holds the byte after
			}
			out = append(out, b[skip:])
		}
	}
	return out
}

// notes collects the Exchange.Redacted entries in order, without repeats.
type notes []string

func (n *notes) add(s string) {
	if !slices.Contains(*n, s) {
		*n = append(*n, s)
	}
}

// maskBytes returns b with every literal secret replaced by RedactedMark and
// whether anything was replaced. b itself is never modified; when nothing
// is replaced the result is b itself (a long conversation's request body is
// not copied once more), so a caller that changes b afterwards must clone.
func (r *redactor) maskBytes(b []byte) ([]byte, bool) {
	out, _, masked := r.scan(b, false)
	return out, masked
}

func (r *redactor) maskString(s string) (string, bool) {
	out, masked := r.maskBytes([]byte(s))
	return string(out), masked
}

// scan walks b from left to right and replaces each secret it finds, taking
// the longest secret that matches at a position. With holdTail set it stops
// at the first position where the remaining bytes could still grow into a
// secret once more data arrives, and returns that position as cut; the
// caller keeps those bytes back until the next read. Without holdTail, cut
// is len(b).
func (r *redactor) scan(b []byte, holdTail bool) (out []byte, cut int, masked bool) {
	if len(r.secrets) == 0 || !r.containsSecret(b) {
		// The common case, and a fast one: only the last few bytes can
		// matter, if they might be the start of a secret. A stream's
		// pending bytes are reused, so what it is given is a copy.
		if !holdTail {
			return b, len(b), false
		}
		cut = len(b)
		if len(r.secrets) > 0 {
			cut = r.tailStart(b)
		}
		return bytes.Clone(b[:cut]), cut, false
	}
	out = make([]byte, 0, len(b))
	i := 0
	for i < len(b) {
		rest := b[i:]
		if holdTail && r.couldGrowIntoSecret(rest) {
			return out, i, masked
		}
		if s := r.secretAt(rest); s != "" {
			out = append(out, RedactedMark...)
			i += len(s)
			masked = true
			continue
		}
		out = append(out, b[i])
		i++
	}
	return out, len(b), masked
}

func (r *redactor) containsSecret(b []byte) bool {
	for _, s := range r.secrets {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// tailStart returns the first position from which the rest of b could
// still grow into a secret, or len(b).
func (r *redactor) tailStart(b []byte) int {
	for i := max(0, len(b)-len(r.secrets[0])+1); i < len(b); i++ {
		if r.couldGrowIntoSecret(b[i:]) {
			return i
		}
	}
	return len(b)
}

// secretAt returns the longest secret b starts with, or "".
func (r *redactor) secretAt(b []byte) string {
	for _, s := range r.secrets {
		if len(b) >= len(s) && b[0] == s[0] && string(b[:len(s)]) == s {
			return s
		}
	}
	return ""
}

// couldGrowIntoSecret reports whether b is a proper prefix of a secret.
func (r *redactor) couldGrowIntoSecret(b []byte) bool {
	for _, s := range r.secrets {
		if len(b) < len(s) && strings.HasPrefix(s, string(b)) {
			return true
		}
	}
	return false
}

// headers returns a masked copy of h. side is "" for request headers and
// "response " for response headers; it prefixes the notes.
func (r *redactor) headers(h http.Header, side string, n *notes) map[string][]string {
	if len(h) == 0 {
		return nil
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names) // so the notes come out in a stable order
	out := make(map[string][]string, len(h))
	for _, name := range names {
		values := slices.Clone(h[name])
		lower := strings.ToLower(name)
		if isSensitiveHeader(name) {
			for i := range values {
				values[i] = RedactedMark
			}
			n.add(side + "header " + lower)
		} else {
			for i, v := range values {
				if masked, ok := r.maskString(v); ok {
					values[i] = masked
					n.add("secret value in " + side + "header " + lower)
				}
			}
		}
		out[name] = values
	}
	return out
}

// url returns u as a string with credentials masked: a password in the user
// info, query parameters named like a key, token or secret, and any literal
// secret anywhere.
func (r *redactor) url(u *url.URL, n *notes) string {
	if u == nil {
		return ""
	}
	masked := *u
	masked.RawQuery = maskQuery(u.RawQuery, n)
	s := masked.String()
	if _, hasPassword := u.User.Password(); hasPassword {
		s = masked.Redacted() // the standard library's own "user:xxxxx@host"
		n.add("URL password")
	}
	if out, ok := r.maskString(s); ok {
		s = out
		n.add("secret value in URL")
	}
	return s
}

// maskQuery masks the values of credential-like parameters in a raw query,
// keeping every other byte (and the parameter order) as it was sent.
func maskQuery(rawQuery string, n *notes) string {
	if rawQuery == "" {
		return ""
	}
	pairs := strings.Split(rawQuery, "&")
	for i, pair := range pairs {
		rawName, _, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			name = rawName
		}
		if isSensitiveParam(name) {
			pairs[i] = rawName + "=" + RedactedMark
			n.add("query " + name)
		}
	}
	return strings.Join(pairs, "&")
}

// streamRedactor masks a response body that arrives in pieces. A secret can
// be split across two reads, so bytes that could be the start of a secret
// are held back until the next read shows whether they are.
type streamRedactor struct {
	r       *redactor
	pending []byte
}

// feed takes the next piece of raw body and returns the masked bytes that
// are now safe to show (possibly none).
func (s *streamRedactor) feed(p []byte) (out []byte, masked bool) {
	s.pending = append(s.pending, p...)
	out, cut, masked := s.r.scan(s.pending, true)
	s.pending = bytes.Clone(s.pending[cut:])
	return out, masked
}

// flush returns whatever was held back: at the end of the body it cannot
// become a secret any more.
func (s *streamRedactor) flush() (out []byte, masked bool) {
	out, masked = s.r.maskBytes(s.pending)
	s.pending = nil
	return out, masked
}

// Redact masks an exchange glassbox did not capture itself — one read
// from a HAR file another tool wrote, say — as the capture masks its own:
// credential headers and URL parameters by name, and every literal secret
// (secrets) wherever it appears. What was masked is added to Redacted.
func Redact(ex Exchange, secrets ...string) Exchange {
	r := newRedactor(secrets)
	n := notes(slices.Clone(ex.Redacted))
	if u, err := url.Parse(ex.URL); err == nil {
		ex.URL = r.url(u, &n)
	} else if s, ok := r.maskString(ex.URL); ok {
		ex.URL = s
		n.add("secret value in URL")
	}
	ex.RequestHeaders = r.headers(http.Header(ex.RequestHeaders), "", &n)
	ex.ResponseHeaders = r.headers(http.Header(ex.ResponseHeaders), "response ", &n)
	ex.WireHeaders, ex.Chunks = slices.Clone(ex.WireHeaders), slices.Clone(ex.Chunks)
	for i, h := range ex.WireHeaders {
		v := r.headers(http.Header{h.Name: {h.Value}}, "", &n)[h.Name]
		ex.WireHeaders[i].Value = v[0]
	}
	var masked bool
	if ex.RequestBody, masked = r.maskBytes(ex.RequestBody); masked {
		n.add("secret value in request body")
	}
	if ex.ResponseBody, masked = r.maskBytes(ex.ResponseBody); masked {
		n.add("secret value in response body")
	}
	for i := range ex.Chunks {
		if ex.Chunks[i].Data, masked = r.maskBytes(ex.Chunks[i].Data); masked {
			n.add("secret value in response body")
		}
	}
	ex.Redacted = []string(n)
	if len(ex.Redacted) == 0 {
		ex.Redacted = nil
	}
	return ex
}
