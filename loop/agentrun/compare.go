package agentrun

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/glassbox-dev/glassbox/providers/backend"
)

// DefaultCompare is what a bare --compare puts side by side: Gemini's native
// function calling and Llama's JSON-mode prompting.
var DefaultCompare = []string{"gemini", "llama"}

// ParseCompare reads the value of --compare: "" or "true" (the bare flag)
// means DefaultCompare; otherwise two dialect names separated by a comma.
func ParseCompare(v string) ([]string, error) {
	switch strings.TrimSpace(v) {
	case "", "true":
		return DefaultCompare, nil
	case "false":
		return nil, nil
	}
	names := strings.Split(v, ",")
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
	}
	c := Config{Compare: names}
	if err := checkCompare(c); err != nil {
		return nil, err
	}
	return names, nil
}

func checkCompare(c Config) error {
	if len(c.Compare) != 2 {
		return fmt.Errorf("--compare=%s: name two dialects, e.g. --compare=gemini,llama (from %s)", strings.Join(c.Compare, ","), backend.Names())
	}
	for _, n := range c.Compare {
		if _, ok := backend.Lookup(n); !ok {
			return fmt.Errorf("--compare: %q is not a dialect; pick two of %s", n, backend.Names())
		}
	}
	if c.Compare[0] == c.Compare[1] {
		return fmt.Errorf("--compare=%s,%s: pick two different dialects (e.g. llama,llama:native)", c.Compare[0], c.Compare[1])
	}
	if c.Model != "" {
		return errors.New("--model names one model, but --compare runs two providers: leave --model out (each run uses its provider's default model)")
	}
	return nil
}

// Runs splits c into the Configs of its runs: one for a single run, two in
// compare mode. Each compare run has its dialect, its name, its own cassette
// file (PerRunPath) and its own copy of the workspace.
func (c Config) Runs() []Config {
	if len(c.Compare) == 0 {
		return []Config{c}
	}
	var runs []Config
	for _, name := range c.Compare {
		d, _ := backend.Lookup(name) // Validate checked the names
		r := c
		r.Compare = nil
		r.Name = name
		r.Provider, r.ToolMode = d.Provider, d.ToolMode
		r.Record, r.Replay = PerRunPath(c.Record, name), PerRunPath(c.Replay, name)
		r.CopyWorkspace = c.Workspace != ""
		runs = append(runs, r)
	}
	return runs
}

// PerRunPath is the file of one run for a path given once in compare mode:
// class.cassette becomes class.gemini.cassette and class.llama-native.cassette.
// Recording and replaying both use it, so --replay finds what --record wrote.
func PerRunPath(path, run string) string {
	if path == "" {
		return ""
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + strings.ReplaceAll(run, ":", "-") + ext
}
