package offline

import (
	"encoding/json"
	"strings"
)

// SpacedJSON marshals v and puts a space after every ':' and ',' outside
// strings, `{"a": 1, "b": 2}`, as a model writes JSON in its text.
func SpacedJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	var out strings.Builder
	inString, escaped := false, false
	for _, c := range string(b) {
		out.WriteRune(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out.WriteByte(' ')
		}
	}
	return out.String()
}
