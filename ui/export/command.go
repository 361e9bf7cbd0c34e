package export

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/history/session"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
)

// Command is `glassbox export SESSION [--step N] [--format md|html] [--out FILE]`
// once its flags are bound.
type Command struct {
	Session string // an id or a file, as --resume takes it
	Out     string // the file to write; "" for stdout
	Options
}

// Run resolves the session, reads it and writes the page. Mistakes the
// person can fix — an unknown session, a step it does not have, a corrupt
// or forged file, --out naming the session itself — wrap agentrun.ErrUsage.
// The page is written whole or not at all.
func (c Command) Run(getenv func(string) string, stdout io.Writer) error {
	dir, derr := session.Dir(getenv)
	path, err := session.Locate("export", dir, c.Session)
	if err != nil {
		if derr != nil && !strings.ContainsRune(c.Session, os.PathSeparator) {
			err = fmt.Errorf("%w (%w)", err, derr)
		}
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	if c.Out != "" {
		if err := notTheSession(c.Out, path); err != nil {
			return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
		}
	}
	c.Secrets = append(c.Secrets, Secrets(getenv)...)
	var buf bytes.Buffer
	if err := Write(&buf, path, c.Options); err != nil {
		return fmt.Errorf("%w: %w", agentrun.ErrUsage, err)
	}
	if c.Out == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(c.Out, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// notTheSession refuses an --out that is the session file or its
// exchanges: a handout never overwrites what it was made from.
func notTheSession(out, path string) error {
	o, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	for _, p := range []string{path, session.ExchangesFile(path)} {
		if s, err := os.Stat(p); err == nil && os.SameFile(o, s) {
			return sentence.Errorf("--out %s is the session's own file; name another file", out)
		}
	}
	if o.IsDir() {
		return sentence.Errorf("--out %s is a folder; name a file", out)
	}
	return nil
}

// Secrets are the key values glassbox knows from the environment and a
// .env in the working directory, as a run would read them: the page masks
// them wherever they appear.
func Secrets(getenv func(string) string) []string {
	dot, _, _ := agentrun.ReadDotEnv(".env") // a broken .env holds no key to mask; a run reports it
	c := agentrun.Defaults(true)
	c.ApplyEnv(agentrun.Layered(getenv, func(k string) string { return dot[k] }))
	return c.Env.Secrets()
}
