package agentrun

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers/backend"
)

// RunSpec is one side of compare mode: a dialect, by its --compare name,
// and the model it runs ("" for --model, or the dialect's default).
type RunSpec struct {
	Dialect string
	Model   string
}

func (r RunSpec) String() string {
	if r.Model == "" {
		return r.Dialect
	}
	return r.Dialect + "@" + r.Model
}

// DefaultCompare is what a bare --compare puts side by side: the default
// dialects of the first two providers the registry lists (Gemini's native
// function calling and Llama's JSON-mode prompting).
func DefaultCompare() []RunSpec {
	var out []RunSpec
	var seen []string
	for _, d := range backend.Dialects() {
		if len(out) < 2 && !slices.Contains(seen, d.Provider) {
			seen = append(seen, d.Provider)
			out = append(out, RunSpec{Dialect: d.Name})
		}
	}
	return out
}

// CompareDefault is what a bare --compare compares, as --compare=… writes
// it: the first two dialects' names, "A,B".
func CompareDefault() string { return specs(DefaultCompare()) }

// ParseCompare reads the value of --compare: "" or "true" (the bare flag)
// means DefaultCompare; otherwise two runs separated by a comma, each a
// dialect name (or alias) with an optional @MODEL:
// "A@qwen2.5:0.5b,B@qwen2.5:0.5b". The names come back as the registry
// spells them (an alias as its dialect's name).
func ParseCompare(v string) ([]RunSpec, error) {
	switch strings.TrimSpace(v) {
	case "", "true":
		return DefaultCompare(), nil
	case "false":
		return nil, nil
	}
	var runs []RunSpec
	for _, part := range strings.Split(v, ",") {
		name, model, at := strings.Cut(strings.TrimSpace(part), "@")
		name, model = strings.TrimSpace(name), strings.TrimSpace(model)
		d, ok := backend.Lookup(name)
		if !ok {
			return nil, sentence.Errorf("--compare=%s: %q is not a dialect; pick two of %s (each may add @MODEL, e.g. --compare=%s)", v, name, backend.Names(), CompareDefault())
		}
		if at && model == "" {
			return nil, sentence.Errorf("--compare=%s: %q names no model after @ (write %s@MODEL, or leave @ out for the default)", v, part, name)
		}
		runs = append(runs, RunSpec{Dialect: d.Name, Model: model})
	}
	if len(runs) != 2 {
		return nil, sentence.Errorf("--compare=%s: name two dialects, e.g. --compare=%s (from %s)", v, CompareDefault(), backend.Names())
	}
	if runs[0].Dialect == runs[1].Dialect {
		return nil, sentence.Errorf("--compare=%s: pick two different dialects (two runs of one dialect would share its name in the trace and the session)", v)
	}
	return runs, nil
}

// LooksLikeCompare reports whether arg, left over after the flags, is a
// --compare value written with a space instead of "=" ("--compare A,B"):
// the flag is boolean-style, so the list would be taken for the request.
func LooksLikeCompare(arg string) bool {
	if strings.ContainsAny(arg, " \t\n") || !strings.Contains(arg, ",") {
		return false
	}
	for _, part := range strings.Split(arg, ",") {
		name, _, _ := strings.Cut(part, "@")
		if _, ok := backend.Lookup(name); ok {
			return true
		}
	}
	return false
}

// ApplyCompare reads --compare's value (CompareSpec) into Compare: a step
// of the config pipeline between the flags and Validate.
func (c *Config) ApplyCompare() error {
	if c.CompareSpec == "" {
		c.Compare = nil
		return nil
	}
	return checkCompare(c)
}

// checkCompare reads CompareSpec into Compare, and checks --model against
// it: --model applies to every run without its own @MODEL, so those runs
// must all be of one provider (a Gemini model means nothing to Ollama).
func checkCompare(c *Config) error {
	runs, err := ParseCompare(c.CompareSpec)
	if err != nil {
		return err
	}
	c.Compare = runs
	if c.Model == "" {
		return nil
	}
	var providers []string
	for _, r := range runs {
		d, _ := backend.Lookup(r.Dialect)
		if r.Model == "" && !slices.Contains(providers, d.Provider) {
			providers = append(providers, d.Provider)
		}
	}
	if len(providers) > 1 {
		return sentence.Errorf("--model %s names one model, but --compare=%s runs two providers (%s): give each run its own, e.g. --compare=%s@MODEL,%s@MODEL",
			c.Model, specs(runs), strings.Join(providers, " and "), runs[0].Dialect, runs[1].Dialect)
	}
	return nil
}

func specs(runs []RunSpec) string {
	var parts []string
	for _, r := range runs {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ",")
}

// CompareSummary says what compare mode will run, one line for the person:
// "compare: A runs qwen2.5:0.5b (--model); B runs qwen2.5:0.5b (--model)".
// "" outside compare mode.
func (c Config) CompareSummary() string { return c.CompareSummaryIn(loop.English) }

// CompareSummaryIn is CompareSummary said with say (a front end's language).
func (c Config) CompareSummaryIn(say loop.Say) string {
	if len(c.Compare) == 0 {
		return ""
	}
	var parts []string
	for i, r := range c.Runs() {
		d, _ := backend.Lookup(r.Name)
		model, from := r.Model, say("given with @")
		switch {
		case model == "":
			model, from = d.DefaultModel, say("its default")
		case c.Compare[i].Model == "":
			from = "--model"
		}
		parts = append(parts, say("%s runs %s (%s)", r.Name, model, from))
	}
	return say("compare: %s", strings.Join(parts, "; "))
}

// Runs splits c into the Configs of its runs: one for a single run, two in
// compare mode. Each compare run has its dialect, its name, its model, its
// own cassette file (PerRunPath) and its own copy of the workspace.
func (c Config) Runs() []Config {
	if len(c.Compare) == 0 {
		return []Config{c}
	}
	var runs []Config
	for _, spec := range c.Compare {
		d, _ := backend.Lookup(spec.Dialect) // Validate checked the names
		r := c
		r.Compare, r.CompareSpec = nil, ""
		r.Name = d.Name
		r.Provider, r.ToolMode = d.Provider, d.ToolMode
		if spec.Model != "" {
			r.Model = spec.Model
		}
		r.Record, r.Replay = PerRunPath(c.Record, d.Name), PerRunPath(c.Replay, d.Name)
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
