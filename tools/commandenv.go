package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// commandEnvNames are the variables a command gets from glassbox's
// environment: the locale, the terminal type and the time zone. Everything
// else — TMUX, SSH_AUTH_SOCK, DBUS_*, keys, tokens, PWD and OLDPWD, which
// would tell it where glassbox runs — stays out, whatever its name, unless
// the policy names it (PassEnv). LC_* variables count as the locale.
var commandEnvNames = []string{"LANG", "LANGUAGE", "TERM", "TZ"}

// commandEnv is the environment a command gets, built from an allow-list:
// PATH limited to the folders the sandbox lets it run programs from, the
// locale, TERM and TZ from env, the variables the policy passes (pass),
// TMPDIR set to its own temporary folder and HOME to a folder inside it.
func commandEnv(env []string, tmp commandTemp, ws string, pass []string) []string {
	out := []string{}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
		case name == "PATH":
			out = append(out, "PATH="+commandPath(value, ws, tmp.dir))
		case slices.Contains(commandEnvNames, name), strings.HasPrefix(name, "LC_"):
			out = append(out, kv)
		case slices.Contains(pass, name) && CheckPassEnv(name) == nil:
			out = append(out, kv)
		}
	}
	if !slices.ContainsFunc(out, func(kv string) bool { return strings.HasPrefix(kv, "PATH=") }) {
		out = append(out, "PATH="+commandPath("", ws, tmp.dir))
	}
	return append(out, "TMPDIR="+tmp.dir, "HOME="+tmp.home)
}

// defaultCommandPath is a command's PATH when glassbox's own has no usable
// folder.
const defaultCommandPath = "/usr/local/bin:/usr/bin:/bin"

// commandPath keeps the folders of path a command can run programs from
// under the sandbox: absolute folders under the system's program folders,
// the workspace or the command's temporary folder. A folder in the home
// folder (~/.pyenv/shims, ~/go/bin) would only make the shell find a
// program the sandbox then refuses to run; a relative one (".") would run
// whatever the workspace holds under a familiar name.
func commandPath(path, ws, tmp string) string {
	var kept []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) || slices.Contains(kept, dir) {
			continue
		}
		if runtime.GOOS != "linux" || within(dir, ws) || within(dir, tmp) || slices.ContainsFunc(systemProgramDirs, func(sys string) bool { return within(dir, sys) }) {
			kept = append(kept, dir)
		}
	}
	if len(kept) == 0 {
		return defaultCommandPath
	}
	return strings.Join(kept, string(os.PathListSeparator))
}

// systemProgramDirs are the folders (with everything under them) the
// sandbox lets a command run programs from, besides its own folders.
var systemProgramDirs = []string{"/usr", "/bin", "/sbin"}

// within reports whether path is dir or inside it (lexically).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// CheckPassEnv refuses to pass a variable to commands whose name looks like
// a secret's (IsSecretEnvName) or that would undo the sandbox's own
// settings (HOME, TMPDIR, PATH, LD_PRELOAD, …).
func CheckPassEnv(name string) error {
	switch {
	case name == "" || strings.ContainsAny(name, "= \t\n"):
		return fmt.Errorf("env: %q is not a variable name", name)
	case IsSecretEnvName(name):
		return fmt.Errorf("env: %s looks like a secret; glassbox never hands secrets to commands (the model reads their output)", name)
	case slices.Contains([]string{"HOME", "TMPDIR", "PATH", "PWD", "OLDPWD"}, strings.ToUpper(name)), strings.HasPrefix(strings.ToUpper(name), "LD_"):
		return fmt.Errorf("env: %s is set by glassbox for each command and cannot be passed on", name)
	}
	return nil
}
