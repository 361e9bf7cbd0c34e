package history

// ToolSpec describes a tool to the model: the same definition becomes a
// Gemini FunctionDeclaration, an Ollama tool, or a paragraph of the Llama
// JSON-mode system prompt.
type ToolSpec struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Params      []ParamSpec `json:"params"`
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

// JSONSchema returns the parameters as a JSON Schema object, the form both
// Ollama and the Llama JSON-mode prompt use.
func (s ToolSpec) JSONSchema() map[string]any {
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
