package providers

import (
	"slices"
	"strings"
	"testing"
)

// Issue 19 item 5: every variable whose name or value looks secret is
// masked, not only the names glassbox knows — and the variables every
// program sees are left alone, so that masking does not garble payloads.
func TestSecretValuesByNameAndValue(t *testing.T) {
	vars := []string{
		"OPENAI_KEY=sk-op3nai-0123456789abcdef",
		"DB_PASS=hunter2hunter2",
		"MYSQL_PWD=s3cr3t-mysql",
		"ROOT_PASSWORD=hunter2",
		"GH_PAT=github_pat_11ABCDEFG0123456789",
		"STRIPE_KEY=rk_live_abcdefghij0123456789",
		"DATABASE_URL=postgres://app:Pa55-w0rd!x@db.internal:5432/app",
		"MY_SERVICE_APIKEY=q1w2e3r4t5y6",
		"SOMETHING=xoxb-1234567890-abcdefghijklmn",                      // a Slack token by its shape
		"RANDOM_BLOB=Zq8xV3mN7pL2wR9tK4yB6cD1fG5hJ0aQ",                  // random-looking
		"JWT_LIKE=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", // a JWT by its shape
	}
	plain := []string{
		"PWD=/home/learner/project", "OLDPWD=/home/learner", "PATH=/usr/bin:/bin", "HOME=/home/learner",
		"SSH_AUTH_SOCK=/tmp/ssh-XYZ/agent.42", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
		"USE_AUTH=true", "AUTH_TYPE=basic", "PASSWORD_POLICY=strict", "LANG=C.UTF-8", "TERM=xterm-256color", "INVOCATION_ID=0123456789abcdef0123456789abcdef",
		"OLLAMA_HOST=http://localhost:11434", "GREETING=hello world this is not secret at all",
		"LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33",
	}
	got := SecretValues(append(slices.Clone(vars), plain...))
	for _, want := range []string{"sk-op3nai-0123456789abcdef", "hunter2hunter2", "s3cr3t-mysql", "github_pat_11ABCDEFG0123456789",
		"rk_live_abcdefghij0123456789", "Pa55-w0rd!x", "hunter2", "q1w2e3r4t5y6", "xoxb-1234567890-abcdefghijklmn",
		"Zq8xV3mN7pL2wR9tK4yB6cD1fG5hJ0aQ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not masked (got %q)", want, got)
		}
	}
	for _, kv := range plain {
		_, v, _ := strings.Cut(kv, "=")
		if slices.Contains(got, v) {
			t.Errorf("%s would be masked", kv)
		}
	}
	// And the whole URL's password is masked where it appears.
	m := NewMasker(got...)
	if out := m.Mask("connect postgres://app:Pa55-w0rd!x@db.internal:5432/app"); strings.Contains(out, "Pa55-w0rd") {
		t.Fatalf("the DATABASE_URL password shows: %s", out)
	}
}
