package providers

import (
	"math"
	"net/url"
	"slices"
	"strings"
)

// SecretValues picks, from variables as NAME=VALUE (os.Environ, a .env
// file), the values a Masker must know: every variable whose name or value
// looks secret — not a list of known names. A name looks secret when one of
// its words (split at _ - .) is a key, token, secret, password or
// credential word (OPENAI_KEY, DB_PASS, MYSQL_PWD, GH_PAT, STRIPE_KEY,
// AWS_SECRET_ACCESS_KEY); a value looks secret when it has the shape of a
// credential (a known key prefix such as sk-, ghp_, AIza, xoxb-; a JWT; a
// private key block; a long random-looking word). A URL with a password
// (DATABASE_URL=postgres://app:PASSWORD@db/app) gives its password.
func SecretValues(vars []string) []string {
	var out []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= minSecretLen && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, kv := range vars {
		name, value, ok := strings.Cut(kv, "=")
		value = strings.TrimSpace(value)
		if !ok || value == "" || plainName(name) {
			continue
		}
		for _, p := range urlPasswords(value) {
			add(p)
		}
		if secretName(name) && plausibleSecret(value) || secretShape(value) {
			add(value)
		}
	}
	return out
}

// plainName reports whether a variable is one every program sees and that
// never holds a secret: masking its value (a path, the user's name) would
// garble every payload.
func plainName(name string) bool {
	switch strings.ToUpper(name) {
	case "PATH", "HOME", "PWD", "OLDPWD", "SHELL", "USER", "LOGNAME", "TERM", "TZ", "TMPDIR", "LANG", "LANGUAGE",
		"DISPLAY", "SHLVL", "HOSTNAME", "EDITOR", "VISUAL", "PAGER", "COLORTERM", "MAIL", "_":
		return true
	}
	return strings.HasPrefix(strings.ToUpper(name), "LC_")
}

// secretWords are the words of a variable's name that say it holds a
// credential.
var secretWords = []string{"KEY", "KEYS", "APIKEY", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASS", "PASSWD",
	"PASSWORD", "PASSPHRASE", "PWD", "PAT", "AUTH", "CREDENTIAL", "CREDENTIALS", "CRED", "CREDS", "PRIVATE",
	"COOKIE", "SIGNATURE"}

// notSecretTails are last words that make a name a path or an address,
// whatever came before (SSH_AUTH_SOCK, KEY_DIR).
var notSecretTails = []string{"SOCK", "SOCKET", "DIR", "PATH", "FILE", "BUNDLE", "HOST", "PORT", "TIMEOUT", "LENGTH"}

func secretName(name string) bool {
	words := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(words) == 0 || slices.Contains(notSecretTails, words[len(words)-1]) {
		return false
	}
	for _, w := range words {
		if slices.Contains(secretWords, w) {
			return true
		}
		for _, part := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "ACCESSKEY", "PRIVATEKEY", "CREDENTIAL"} {
			if strings.Contains(w, part) {
				return true
			}
		}
	}
	return false
}

// plausibleSecret reports whether the value of a secret-named variable is
// worth masking: not a switch (true, 0) or a plain word (AUTH_TYPE=basic,
// PASSWORD_POLICY=strict) that would match everywhere and garble every
// payload. Six characters or more, of two kinds at least (letters and
// digits, upper and lower case, marks) unless it is long.
func plausibleSecret(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "none", "null", "nil", "enabled", "disabled",
		"bearer", "basic", "digest", "oauth", "oauth2", "token", "password", "secret", "required", "optional":
		return false
	}
	if len(v) < minSecretLen+2 {
		return false
	}
	kinds := 0
	for _, class := range []func(rune) bool{
		func(r rune) bool { return r >= 'a' && r <= 'z' },
		func(r rune) bool { return r >= 'A' && r <= 'Z' },
		func(r rune) bool { return r >= '0' && r <= '9' },
		func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') },
	} {
		if strings.ContainsFunc(v, class) {
			kinds++
		}
	}
	return kinds >= 2 || len(v) >= 12
}

// keyPrefixes begin the credentials of well-known services.
var keyPrefixes = []string{"sk-", "sk_live_", "sk_test_", "rk_live_", "rk_test_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
	"github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxs-", "xapp-", "AIza", "AKIA", "ASIA", "ya29.", "hf_", "npm_",
	"pypi-", "SG.", "shpat_", "dop_v1_", "sq0atp-", "EAAC", "-----BEGIN"}

// secretShape reports whether a value looks like a credential on its own.
func secretShape(v string) bool {
	if len(v) < 16 {
		return false
	}
	for _, p := range keyPrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	if parts := strings.Split(v, "."); len(parts) == 3 && strings.HasPrefix(v, "eyJ") && len(parts[1]) > 8 {
		return true // a JWT
	}
	return randomWord(v)
}

// randomWord reports whether v is one long word of letters, digits and the
// few marks keys use, with upper and lower case and digits, and close to
// random (Shannon entropy of at least 3.5 bits a character).
func randomWord(v string) bool {
	if len(v) < 24 {
		return false
	}
	var upper, lower, digit bool
	counts := map[rune]int{}
	for _, r := range v {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune("+/=_-.", r):
		default:
			return false
		}
		counts[r]++
	}
	if !upper || !lower || !digit || strings.HasPrefix(v, "/") {
		return false
	}
	entropy := 0.0
	for _, n := range counts {
		p := float64(n) / float64(len(v))
		entropy -= p * math.Log2(p)
	}
	return entropy >= 3.5
}

// urlPasswords are the passwords in the URLs value holds
// (scheme://user:password@host).
func urlPasswords(value string) []string {
	if !strings.Contains(value, "://") || !strings.Contains(value, "@") {
		return nil
	}
	var out []string
	for _, f := range strings.FieldsFunc(value, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }) {
		u, err := url.Parse(f)
		if err != nil || u.User == nil {
			continue
		}
		if p, ok := u.User.Password(); ok && p != "" {
			out = append(out, p)
			if esc := url.QueryEscape(p); esc != p {
				out = append(out, esc) // as it is spelled in the URL
			}
		}
	}
	return out
}
