//go:build unix

package agentrun

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/tools"
)

// secretsFDVar names the descriptor the secrets arrive on after HideSecrets
// re-executed glassbox.
const secretsFDVar = "GLASSBOX_SECRETS_FD"

// maxSecretsBytes is what fits in a pipe's buffer (64 KiB on Linux) with
// room to spare: the secrets are written before the exec, with no reader yet.
const maxSecretsBytes = 60 << 10

// HideSecrets keeps secrets out of glassbox's own environment block. The
// kernel keeps a process's starting environment for /proc/PID/environ, and
// os.Unsetenv does not change it, so a command could read any key there.
// When a variable with a secret-looking name is set (tools.IsSecretEnvName:
// GEMINI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, …), glassbox writes
// those variables into a pipe and replaces itself (execve, same process id,
// same terminal, same signals) with a copy of itself whose environment lacks
// them; the copy reads them back from the pipe into its Go environment,
// which /proc does not show. With nothing secret set it does nothing. It
// returns only on the second stage or when there is nothing to hide; an
// error means the secrets stayed where they were.
func HideSecrets() error {
	if fd := os.Getenv(secretsFDVar); fd != "" {
		return readSecrets(fd)
	}
	secret, clean := splitSecretEnv(os.Environ())
	if len(secret) == 0 {
		return nil
	}
	payload := []byte(strings.Join(secret, "\x00"))
	if len(payload) > maxSecretsBytes {
		return sentence.Errorf("the secret variables hold %d bytes, more than the %d KiB glassbox can pass on", len(payload), maxSecretsBytes>>10)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	_, err = w.Write(payload)
	w.Close()
	if err != nil {
		r.Close()
		return err
	}
	fd := int(r.Fd())
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, 0); errno != 0 {
		r.Close()
		return errno // keep the read end open across exec
	}
	clean = append(clean, secretsFDVar+"="+strconv.Itoa(fd))
	err = syscall.Exec(self, os.Args, clean)
	r.Close()
	return err
}

// readSecrets is HideSecrets' second stage: the secrets come back from the
// pipe into the Go environment, which commands never inherit whole
// (execute_command removes secret-named variables) and /proc never shows.
func readSecrets(fdText string) error {
	os.Unsetenv(secretsFDVar)
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return sentence.Errorf("%s=%q is not a descriptor glassbox passed", secretsFDVar, fdText)
	}
	f := os.NewFile(uintptr(fd), "secrets")
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretsBytes+1))
	if err != nil {
		return err
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if name, value, ok := strings.Cut(string(kv), "="); ok && name != "" {
			os.Setenv(name, value)
		}
	}
	return nil
}

// splitSecretEnv separates the variables to keep out of glassbox's
// environment block: those with a secret-looking name
// (tools.IsSecretEnvName), and every other whose name or value looks secret
// (providers.SecretValues: OPENAI_KEY, DB_PASS, MYSQL_PWD, GH_PAT, a
// DATABASE_URL with a password).
func splitSecretEnv(environ []string) (secret, clean []string) {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if value != "" && name != secretsFDVar && (tools.IsSecretEnvName(name) || len(providers.SecretValues([]string{kv})) > 0) {
			secret = append(secret, kv)
		} else {
			clean = append(clean, kv)
		}
	}
	return secret, clean
}
