package history

import (
	"bytes"
	"encoding/json"
)

// MarshalPlain encodes v as compact JSON without json.Marshal's HTML
// escaping: the text is read by a model and by a learner, never embedded in
// HTML, so a command such as `ls && cat <a>` must read as written, not as
// \u0026\u0026 and \u003c. Tool arguments, JSON-mode replies and the what-if
// context all go through it.
func MarshalPlain(v any) ([]byte, error) { return marshalPlain(v, "") }

// MarshalPlainIndent is MarshalPlain with each level indented by indent,
// for JSON a person edits, and ending in a newline.
func MarshalPlainIndent(v any, indent string) ([]byte, error) {
	b, err := marshalPlain(v, indent)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func marshalPlain(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
