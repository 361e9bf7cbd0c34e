package mcptool

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// A server may name its tools as it likes ("elicit (form)", "検索", a name
// of 80 letters), while a model accepts only what every dialect does
// (toolNamePattern). Every tool is offered all the same: under its own
// name where that is valid, else under a name made from it, and always
// called on the server by its own. The mapping depends on the names alone,
// never on the order a server lists them, so a session or a cassette
// recorded with a server gets the same names when it is replayed.

// maxToolName is the longest name the narrowest dialect (Gemini) accepts.
const maxToolName = 64

// hashLen is how many hex digits of a name's SHA-256 tell two mapped names
// apart.
const hashLen = 8

// offeredNames maps each of a server's tool names (remote) to the name it
// is offered to the model by, NAME__tool. A name that is valid as it is
// keeps it. Any other becomes its valid characters, each run of others
// one _ ("elicit (form)" → elicit_form), cut to fit; and it also carries
// a short hash of the server's own name when it was cut, when nothing of
// it was valid, or when another tool would get the same name — so two
// names that map alike are told apart the same way whatever their order.
func offeredNames(server string, remote []string) map[string]string {
	prefix := server + Separator
	out := make(map[string]string, len(remote))
	taken := map[string]int{} // candidate → how many tools would take it
	for _, r := range remote {
		if toolNamePattern.MatchString(prefix + r) {
			out[r] = prefix + r
			taken[prefix+r]++
		}
	}
	candidates := map[string]string{}
	for _, r := range remote {
		if _, ok := out[r]; ok {
			continue
		}
		c, plain := mappedName(prefix, r)
		candidates[r] = c
		if plain {
			taken[c]++
		}
	}
	for r, c := range candidates {
		if taken[c] > 1 || c == "" {
			c = hashedName(prefix, r)
		}
		out[r] = c
	}
	return out
}

// mappedName is remote made valid after prefix: its runs of characters no
// model accepts become one _, and what is left is kept if it fits. plain
// says it did (otherwise the hashed name is returned).
func mappedName(prefix, remote string) (string, bool) {
	base := validPart(remote)
	if base == "" || len(prefix)+len(base) > maxToolName {
		return hashedName(prefix, remote), false
	}
	return prefix + base, true
}

// hashedName is remote's valid part, cut to leave room, then _ and the
// first hashLen hex digits of remote's SHA-256.
func hashedName(prefix, remote string) string {
	sum := sha256.Sum256([]byte(remote))
	tail := "_" + hex.EncodeToString(sum[:])[:hashLen]
	base := validPart(remote)
	if base == "" {
		base = "tool"
	}
	if room := maxToolName - len(prefix) - len(tail); len(base) > room {
		base = strings.TrimRight(base[:max(room, 0)], "_")
	}
	return prefix + base + tail
}

// validPart is s with each run of characters a model would refuse (not an
// ASCII letter, digit, _, . or -) replaced by one _, none at either end.
func validPart(s string) string {
	var b strings.Builder
	pending := false
	for _, r := range s {
		ok := r < 0x80 && (r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		switch {
		case !ok:
			pending = true
		default:
			if pending && b.Len() > 0 {
				b.WriteByte('_')
			}
			pending = false
			b.WriteRune(r)
		}
	}
	return b.String()
}
