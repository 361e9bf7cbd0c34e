package agentrun

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/telemetry"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/tools/mcptool"
)

// StartTelemetry starts the OpenTelemetry exporter c asks for (--otlp URL,
// --otlp-content, or OTEL_EXPORTER_OTLP_ENDPOINT and its kin read through
// getenv) and keeps it in c.Telemetry, where every run opened from c finds
// it: one exporter for the whole process. It does nothing when export is
// off. A bad URL or setting wraps ErrUsage. The caller closes the exporter
// after the runs (Exporter.Close, bounded) and reports its Stats.
func (c *Config) StartTelemetry(getenv func(string) string) error {
	s, err := telemetry.Resolve(c.OTLP, c.OTLPContent, getenv)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if !s.Enabled() {
		return nil
	}
	// The collector's credentials are masked like the keys.
	c.Env = c.Env.WithSecrets(s.Secrets...)
	s.Secrets = append(s.Secrets, c.Env.Secrets()...)
	exp, err := telemetry.Start(s, c.Version, telemetry.Limits{})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	c.Telemetry = exp
	return nil
}

// observe subscribes the run to c.Telemetry and returns the function its
// engine hands each transition to; nil when export is off.
func (r *Run) observe(c Config, registry *tools.Registry, system string) func(loop.Transition) {
	if c.Telemetry == nil {
		return nil
	}
	servers := map[string]string{}
	for _, m := range c.MCP {
		if spec, err := mcptool.ParseSpec(m); err == nil {
			servers[spec.Name] = spec.URL
		}
	}
	if system == "" {
		system = loop.DefaultSystemPrompt
	}
	id := c.Session
	if id == "" {
		id = c.Resume
	}
	if id != "" {
		id = strings.TrimSuffix(filepath.Base(id), ".jsonl")
	}
	r.feed = c.Telemetry.Observe(telemetry.Run{
		Name:         c.Name,
		Provider:     r.Backend.Dialect.GenAI.Provider,
		Operation:    r.Backend.Dialect.GenAI.Operation,
		Model:        r.Backend.Provider.Model(),
		Conversation: id,
		Stream:       !c.Call.Unary,
		System:       system,
		Tools:        registry.Specs(),
		MCPServers:   servers,
		Secrets:      c.Env.Secrets(),
	})
	return r.feed.Transition
}

// both calls a then b; either may be nil.
func both(a, b func(loop.Transition)) func(loop.Transition) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(t loop.Transition) { a(t); b(t) }
}
