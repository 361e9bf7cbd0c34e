package agentrun

import "github.com/glassbox-dev/glassbox/tools"

// Wire is the log of the run's MCP frames: its servers' and, when glassbox
// is on the bus (loop/bus), the bus's.
func (r *Run) Wire() *tools.WireLog { return r.registry.Wire() }
