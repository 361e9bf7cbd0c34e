package ollama

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers"
)

// schemaParameters turns a tool's own JSON Schema (an MCP server's
// inputSchema) into Ollama's native parameters. The ollama client carries
// parameters in a fixed Go type that keeps only some keywords (type,
// properties, required, items, enum, anyOf, description, $defs); a schema
// that says more than that type can hold is refused, naming what would be
// lost, rather than sent to the model changed. JSON mode passes any schema
// as written.
func schemaParameters(spec history.ToolSpec) (api.ToolFunctionParameters, error) {
	var params api.ToolFunctionParameters
	var given any
	if err := json.Unmarshal(spec.Schema, &given); err != nil {
		return params, schemaRefused(spec, fmt.Sprintf("its input schema is not JSON (%v)", err))
	}
	if _, ok := given.(map[string]any); !ok {
		return params, schemaRefused(spec, "its input schema is not a JSON object")
	}
	if err := json.Unmarshal(spec.Schema, &params); err != nil {
		return params, schemaRefused(spec, fmt.Sprintf("Ollama's tool parameters cannot hold its input schema (%v)", err))
	}
	if params.Properties == nil {
		params.Properties = api.NewToolPropertiesMap()
	}
	back, err := json.Marshal(params)
	if err != nil {
		return params, schemaRefused(spec, err.Error())
	}
	var kept any
	_ = json.Unmarshal(back, &kept)
	if lost := lostKeywords(given, kept, ""); len(lost) > 0 {
		return params, schemaRefused(spec, "Ollama's native tools cannot carry "+strings.Join(lost, ", ")+
			" of its input schema; --tool-mode json passes the schema as written")
	}
	return params, nil
}

func schemaRefused(spec history.ToolSpec, why string) error {
	return providers.Errorf(providers.KindBadRequest, 0, nil, "tool %s cannot be described to Ollama: %s", spec.Name, why)
}

// lostKeywords lists the places where kept says less than given: a key it
// dropped, or a value it changed, as JSON pointers (/properties/q/minLength).
func lostKeywords(given, kept any, at string) []string {
	switch g := given.(type) {
	case map[string]any:
		k, _ := kept.(map[string]any)
		var lost []string
		for _, key := range slices.Sorted(maps.Keys(g)) {
			kv, ok := k[key]
			if !ok {
				lost = append(lost, at+"/"+key)
				continue
			}
			lost = append(lost, lostKeywords(g[key], kv, at+"/"+key)...)
		}
		return lost
	case []any:
		k, _ := kept.([]any)
		if len(k) != len(g) {
			return []string{at}
		}
		var lost []string
		for i := range g {
			lost = append(lost, lostKeywords(g[i], k[i], fmt.Sprintf("%s/%d", at, i))...)
		}
		return lost
	}
	if reflect.DeepEqual(given, kept) {
		return nil
	}
	// Ollama writes a one-type list ["string"] as "string" and back; the
	// same type either way is not a loss.
	if l, ok := given.([]any); ok && len(l) == 1 && reflect.DeepEqual(l[0], kept) {
		return nil
	}
	return []string{at}
}

// CheckTools reports, before any call, a tool this provider cannot describe
// to the model: in native mode, a schema Ollama's tool type cannot carry
// (schemaParameters). JSON mode takes every schema as written.
func (p *Provider) CheckTools(specs []history.ToolSpec) error {
	if p.toolMode != ToolModeNative {
		return nil
	}
	_, err := nativeTools(specs)
	return err
}
