package tools

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/glassbox-dev/glassbox/history"
)

// Registry is the set of tools the model may call, in the order it sees them.
type Registry struct {
	tools  []Tool
	byName map[string]Tool
	wire   WireLog
}

// NewRegistry lists tools in the given order. Two tools with the same name,
// an empty name or a nil tool are errors.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]Tool, len(tools))}
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("tool %d is nil", i+1)
		}
		name := t.Spec().Name
		if name == "" {
			return nil, fmt.Errorf("tool %d has no name", i+1)
		}
		if _, dup := r.byName[name]; dup {
			return nil, fmt.Errorf("two tools are named %q", name)
		}
		r.byName[name] = t
		r.tools = append(r.tools, t)
	}
	return r, nil
}

// Default is glassbox's tool set: every tool, wired to the workspace ws and
// the person asker, in the order the model sees them. Commands are stopped
// after commandTimeout (DefaultCommandTimeout if 0).
func Default(ws *Workspace, asker Asker, commandTimeout time.Duration) *Registry {
	r, err := NewRegistry(
		NewReadFile(ws),
		NewWriteFile(ws),
		NewListFiles(ws),
		NewExecuteCommand(ws, commandTimeout),
		NewAskUser(asker),
	)
	if err != nil {
		panic("built-in tools are misconfigured: " + err.Error()) // a test keeps this unreachable
	}
	return r
}

// Add appends tools (an MCP server's) after the ones the registry holds.
// A name already taken is an error and nothing is added.
func (r *Registry) Add(tools ...Tool) error {
	seen := map[string]bool{}
	for i, t := range tools {
		if t == nil {
			return fmt.Errorf("tool %d is nil", i+1)
		}
		name := t.Spec().Name
		if _, dup := r.byName[name]; dup || seen[name] {
			return fmt.Errorf("two tools are named %q", name)
		}
		seen[name] = true
	}
	for _, t := range tools {
		r.byName[t.Spec().Name] = t
		r.tools = append(r.tools, t)
	}
	return nil
}

// Wire is where the registry's MCP tools record their JSON-RPC frames.
func (r *Registry) Wire() *WireLog { return &r.wire }

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Specs returns every tool's definition, in order, for the model.
func (r *Registry) Specs() []history.ToolSpec {
	specs := make([]history.ToolSpec, len(r.tools))
	for i, t := range r.tools {
		specs[i] = t.Spec()
	}
	return specs
}

// Names returns the tool names, in order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Spec().Name
	}
	return names
}

// Preview returns what a call to the tool called name would do, or "" when
// there is no such tool or it has no preview.
func (r *Registry) Preview(name string, args json.RawMessage) string {
	if p, ok := r.byName[name].(Previewer); ok {
		return p.Preview(args)
	}
	return ""
}
