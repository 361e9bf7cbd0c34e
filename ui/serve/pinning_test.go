package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Issue 28, attacking follow's host-key pinning: an impostor room (its
// own host key) set up where a learner expects the instructor's is never
// given the passphrase — not with the real fingerprint pinned, not with a
// prefix of it, not with a known_hosts line that matches every host, nor
// with the real key marked revoked. (A passphrase the impostor collected
// would let it in to the real room.)
func TestFollowPinningHoldsAgainstAnImpostor(t *testing.T) {
	real, _, _ := broadcastRoom(t)
	impostor, b, tour := broadcastRoom(t)
	b.Publish(tour[0])
	dir := t.TempDir()
	realKey := hostPublicKey(t, real)
	every := writeFile(t, filepath.Join(dir, "every"), knownhosts.Line([]string{"*"}, realKey)+"\n")
	revoked := writeFile(t, filepath.Join(dir, "revoked"), "@revoked "+knownhosts.Line([]string{knownhosts.Normalize(impostor.addr)}, hostPublicKey(t, impostor))+"\n")
	fp := real.srv.Fingerprint()
	for _, c := range []struct {
		name, fingerprint, knownHosts, want string
	}{
		{"the real room's fingerprint", fp, "", "not the one you pinned"},
		{"a prefix of it", fp[:len(fp)/2], "", "not the one you pinned"},
		{"a known_hosts line for every host", "", every, "is not known"},
		{"the impostor's key revoked", "", revoked, "is not known"},
	} {
		asked := 0
		_, err := Dial(context.Background(), FollowOptions{Addr: impostor.addr, Fingerprint: c.fingerprint, KnownHosts: c.knownHosts,
			Passphrase: func() (string, error) { asked++; return real.opts.Passphrase, nil }})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.want)
		}
		if asked != 0 {
			t.Errorf("%s: the passphrase was given to the impostor", c.name)
		}
	}
}

// hostPublicKey is the public half of r's host key.
func hostPublicKey(t *testing.T, r *room) gossh.PublicKey {
	t.Helper()
	pem, err := os.ReadFile(filepath.Join(r.opts.StateDir, "serve_host_ed25519"))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	return signer.PublicKey()
}
