package agentrun

import (
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/tools"
)

// This file holds what glassbox refuses to trust or to overwrite: folders
// no workspace may be (the filesystem's root, the home folder, glassbox's
// own state), a workspace or policy named by a session file, and outputs
// (--record, --trace) that would replace one of the run's inputs.

// resolved is path made absolute with its symbolic links followed as far as
// they exist: two spellings of one folder compare equal.
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	// A file that does not exist yet: resolve its folder.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// within reports whether path is dir or inside it (both resolved).
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// StateDir is glassbox's own state folder: $XDG_STATE_HOME/glassbox, or
// ~/.local/state/glassbox. Sessions, the key that seals approvals and the
// temporary files of recordings live here.
func StateDir(getenv func(string) string) (string, error) {
	dir, err := session.Dir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Dir(dir), nil
}

// checkWorkspaceFolder refuses a folder that must never be a workspace:
// the filesystem's root, the home folder, and glassbox's own state folder,
// a folder that holds it (/home holds ~/.local/state/glassbox), or any
// folder in it but a session's own workspace. The tools and the sandbox may write
// anywhere in the workspace; in those folders that means every file the
// person has, or the session files and the key that seals approvals.
func checkWorkspaceFolder(flag, dir string, getenv func(string) string) error {
	real := resolved(dir)
	fix := sentence.Errorf("make a folder for the work (mkdir -p ~/glassbox-work) and pass %s ~/glassbox-work, or leave %s out to work on a fresh copy of the sample project", flag, flag)
	if filepath.Dir(real) == real {
		return sentence.Errorf("%s %s is the root of the filesystem: the tools could change every file on the machine; %s", flag, dir, fix)
	}
	if home := getenv("HOME"); home != "" && resolved(home) == real {
		return sentence.Errorf("%s %s is your home folder: the tools could change every file you have (.bashrc, .ssh); %s", flag, dir, fix)
	}
	state, err := StateDir(getenv)
	if err != nil {
		return nil // no state folder: nothing of glassbox's to protect
	}
	state = resolved(state)
	switch {
	case within(state, real):
		return sentence.Errorf("%s %s holds glassbox's own state (%s: sessions and the key that seals approvals); %s", flag, dir, state, fix)
	case within(real, state) && !isSessionWorkspace(real, state):
		return sentence.Errorf("%s %s is inside glassbox's own state folder %s (sessions and the key that seals approvals); %s", flag, dir, state, fix)
	}
	return nil
}

// isSessionWorkspace reports whether dir (resolved, inside the state folder)
// is a session's own workspace, ID.files/workspace[-RUN] (under sessions/,
// or a learner's folder of glassbox serve), or a folder inside one.
func isSessionWorkspace(dir, state string) bool {
	rel, err := filepath.Rel(state, dir)
	if err != nil {
		return false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i := 0; i+1 < len(parts); i++ {
		if strings.HasSuffix(parts[i], ".files") && parts[i] != ".files" &&
			(parts[i+1] == "workspace" || strings.HasPrefix(parts[i+1], "workspace-")) {
			return true
		}
	}
	return false
}

// ownWorkspace is the folder a session keeps its run's workspace in:
// ID.files/workspace beside ID.jsonl (workspace-RUN in compare mode).
func ownWorkspace(sessionPath, run string) string {
	name := "workspace"
	if run != "" {
		name += "-" + strings.ReplaceAll(run, ":", "-")
	}
	return filepath.Join(session.DataDir(sessionPath), name)
}

// sessionWorkspace decides the folder a resumed run works in. A session
// file is untrusted input: the workspace its header names is used only if
// it is the session's own folder — a real folder beside the file, no
// symbolic link on the way from the session's folder to it. Otherwise the
// person names the folder with --workspace (flagged), which passed the same
// checks as any --workspace.
func sessionWorkspace(sessionPath string, info session.RunInfo, flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if _, known := backend.Lookup(info.Name); info.Name != "" && !known {
		return "", sentence.Errorf("%w: the session %s names a run %q, which is no dialect glassbox speaks; it has been edited or is damaged", ErrUsage, sessionPath, info.Name)
	}
	own := ownWorkspace(sessionPath, info.Name)
	dir := resolved(filepath.Dir(sessionPath))
	ownReal := filepath.Join(dir, filepath.Base(session.DataDir(sessionPath)), filepath.Base(own))
	named := info.Workspace
	if named != "" && filepath.IsAbs(named) && resolved(named) == ownReal && noLinks(dir, ownReal) {
		if err := checkWorkspaceFolder("--workspace", ownReal, os.Getenv); err != nil {
			return "", sentence.Errorf("%w: the session %s: %v", ErrUsage, sessionPath, err)
		}
		return ownReal, nil
	}
	if named == "" {
		named = `""`
	}
	return "", sentence.Errorf("%w: the session %s names the workspace %s, which is not its own folder (%s); glassbox never takes a folder from a session file. If %s is the folder this session worked in, say so: glassbox --resume %s --workspace %s",
		ErrUsage, sessionPath, named, own, named, sessionPath, named)
}

// noLinks reports whether every component of path below base is a real
// folder, not a symbolic link.
func noLinks(base, path string) bool {
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	p := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// input is a file or folder a run reads or keeps; no output may replace it.
type input struct {
	what error // "the session file", "the --policy file", … (a sentence: a front end may say it in its language)
	path string
	dir  bool // a folder: nothing inside it either
}

// checkOutputs refuses an output (--record, --trace) that names one of the
// run's inputs or, for a folder, a path inside it: --resume S --record S
// would replace the session with a cassette, --record onto the --policy
// file would replace the rules, and a recording inside the workspace could
// be changed by a command before it is complete.
func checkOutputs(outputs []input, inputs []input) error {
	for _, out := range outputs {
		if out.path == "" {
			continue
		}
		o := resolved(out.path)
		ost, oerr := os.Stat(out.path)
		for _, in := range inputs {
			if in.path == "" {
				continue
			}
			i := resolved(in.path)
			same := o == i
			if !same && oerr == nil {
				if ist, err := os.Stat(in.path); err == nil && os.SameFile(ost, ist) {
					same = true // a hard link
				}
			}
			switch {
			case same && in.dir:
				return sentence.Errorf("%s %s is %s; name a file outside it", out.what, out.path, in.what)
			case same:
				return sentence.Errorf("%s %s is %s: glassbox never writes an output over one of its inputs; name another file", out.what, out.path, in.what)
			case in.dir && within(o, i):
				return sentence.Errorf("%s %s is inside %s (%s), where a command could change it; name a file outside it", out.what, out.path, in.what, in.path)
			}
		}
	}
	return nil
}

// outputs are c's output files.
func (c Config) outputs() []input {
	var out []input
	for _, r := range c.Runs() {
		out = append(out, input{what: sentence.Errorf("--record"), path: r.Record})
	}
	return append(out, input{what: sentence.Errorf("--trace"), path: c.Trace})
}

// inputsOf are the files and folders a run of c reads or keeps: the policy,
// the cassette it replays, the workspace, and the session (file and folder).
func (c Config) inputsOf(sessionPath string) []input {
	in := []input{
		{what: sentence.Errorf("the --policy file"), path: c.Policy},
		{what: sentence.Errorf("the --replay cassette"), path: c.Replay},
		{what: sentence.Errorf("the workspace"), path: c.Workspace, dir: true},
	}
	if sessionPath != "" {
		in = append(in,
			input{what: sentence.Errorf("the session file"), path: sessionPath},
			input{what: sentence.Errorf("the session's folder"), path: session.DataDir(sessionPath), dir: true})
	}
	return in
}

// recordTempDir is where a recording is written until it is complete:
// glassbox's state folder (tmp/, 0700), out of every workspace's reach; ""
// (beside the cassette) when there is no state folder.
func recordTempDir(getenv func(string) string) string {
	state, err := StateDir(getenv)
	if err != nil {
		return ""
	}
	dir := filepath.Join(state, "tmp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return dir
}

// SecretsIn are the values to mask that the environment and the .env file
// at dotEnv hold: every variable whose name or value looks secret
// (providers.SecretValues), whether glassbox uses it or not — a command
// that prints the .env, or an environment dumped by a model, must show
// none of them.
func SecretsIn(environ []string, dotEnv string) []string {
	vars := slices.Clone(environ)
	return providers.SecretValues(append(vars, dotEnvVars(dotEnv)...))
}

// dotEnvVars are every variable of a .env file as NAME=VALUE (none when it
// is missing or unreadable: the config pipeline reports that).
func dotEnvVars(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	all, err := parseDotEnv(io.LimitReader(f, dotEnvLimit+1))
	if err != nil {
		return nil
	}
	var out []string
	for k, v := range all {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// workspaceSecrets are the secrets of the .env files at the top of a
// workspace (.env, .env.local, …; tools.DotEnvFiles): glassbox reads them
// so that a command's output, or a copy of the folder, is masked; the
// commands themselves find them empty (concealed).
func workspaceSecrets(root string) []string {
	var vars []string
	for _, f := range tools.DotEnvFiles(root) {
		vars = append(vars, dotEnvVars(f)...)
	}
	return providers.SecretValues(vars)
}

// sessionGuard masks and seals what a session file keeps: the masker knows
// every secret of every run; the key is this user's (nil when there is no
// state folder: nothing is sealed, and a resumed session then trusts none
// of its approvals).
func sessionGuard(w *session.Writer, runs []*Run) *providers.Masker {
	var secrets []string
	for _, r := range runs {
		secrets = append(secrets, r.Config.Env.Secrets()...)
	}
	mask := providers.NewMasker(secrets...)
	var key *session.Key
	if state, err := StateDir(os.Getenv); err == nil {
		if key, err = session.LoadKey(state); err != nil {
			log.Printf("glassbox: the key that seals approvals: %v; approvals in this session will be asked again after a resume", err)
			key = nil
		}
	}
	w.Guard(key, mask)
	return mask
}
