package history

import (
	"bytes"
	"encoding/json"
)

// ToolSpec describes a tool to the model: the same definition becomes a
// Gemini FunctionDeclaration, an Ollama tool, or a paragraph of the Llama
// JSON-mode system prompt.
//
// A built-in tool lists its Params; a tool from elsewhere (an MCP server)
// carries its input JSON Schema as given in Schema, and each dialect passes
// it on as written or refuses it with the reason (docs/tools.md, "Tools as
// data").
type ToolSpec struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Params      []ParamSpec `json:"params,omitempty"`
	// Schema is the tool's input JSON Schema exactly as its author gave it.
	// When set, it is what the model sees and Params is empty.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Attrs says what a call to the tool may do. The policy and the
	// workspace snapshots decide by it, never by the tool's name.
	Attrs Attributes `json:"attributes"`
}

// Attributes are what a call to a tool may do to the world.
type Attributes struct {
	// ReadsOnly: the tool reads the workspace or asks the person and
	// changes nothing.
	ReadsOnly bool `json:"reads_only,omitempty"`
	// ChangesFiles: the tool may change files in the workspace, so a
	// snapshot is taken around each call (a fork can put them back).
	ChangesFiles bool `json:"changes_files,omitempty"`
	// ReachesOut: the tool may reach something outside the workspace (a
	// server, the network).
	ReachesOut bool `json:"reaches_out,omitempty"`
	// Origin is where the tool comes from: "" for a built-in tool,
	// "mcp:NAME" for a tool of the MCP server attached as NAME.
	Origin string `json:"origin,omitempty"`
	// Hints are what the tool's author claims about it (MCP annotations
	// such as readOnlyHint), shown to the person but never trusted: they do
	// not set the attributes above.
	Hints []string `json:"hints,omitempty"`
}

// ParamType is a JSON Schema type name.
type ParamType string

const (
	TypeString  ParamType = "string"
	TypeInteger ParamType = "integer"
	TypeBoolean ParamType = "boolean"
	TypeArray   ParamType = "array" // of strings
)

// ParamSpec is one parameter, in the order the model should see them.
type ParamSpec struct {
	Name        string    `json:"name"`
	Type        ParamType `json:"type"`
	Description string    `json:"description"`
	Required    bool      `json:"required,omitempty"`
	// Path marks a parameter that names a file or folder; the security layer
	// checks every such argument against the workspace.
	Path bool `json:"path,omitempty"`
}

// HasSchema reports whether the tool carries its own JSON Schema.
func (s ToolSpec) HasSchema() bool { return len(bytes.TrimSpace(s.Schema)) > 0 }

// JSONSchema returns the parameters as a JSON Schema object, the form both
// Ollama and the Llama JSON-mode prompt use: the tool's own schema when it
// carries one (decoded; a schema that is not a JSON object gives nil),
// otherwise one built from Params.
func (s ToolSpec) JSONSchema() map[string]any {
	if s.HasSchema() {
		var m map[string]any
		if json.Unmarshal(s.Schema, &m) != nil {
			return nil
		}
		return m
	}
	props := map[string]any{}
	required := []string{}
	for _, p := range s.Params {
		prop := map[string]any{"type": string(p.Type), "description": p.Description}
		if p.Type == TypeArray {
			prop["items"] = map[string]any{"type": "string"}
		}
		props[p.Name] = prop
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

// SchemaProperties lists the top-level properties of the tool's own schema,
// in the order the schema writes them, and which of them are required. It
// returns nothing for a tool without a schema or with one that is not an
// object of properties.
func (s ToolSpec) SchemaProperties() (names []string, required map[string]bool) {
	if !s.HasSchema() {
		return nil, nil
	}
	var top struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(s.Schema, &top) != nil {
		return nil, nil
	}
	required = map[string]bool{}
	for _, r := range top.Required {
		required[r] = true
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, required
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		name, _ := tok.(string)
		names = append(names, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return names, required
}
