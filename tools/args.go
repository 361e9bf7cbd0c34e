package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/glassbox-dev/glassbox/history"
)

// decodeArgs checks the model's arguments against the tool's spec and decodes
// them into params (a pointer to the tool's params struct). It is strict on
// purpose: an unknown argument, a wrong type or a missing required argument
// is an error whose message tells the model exactly what to fix. The tools
// turn that message into a Result with IsError set.
//
// Missing arguments (empty or JSON null) count as an empty object, because
// some providers send nothing for a call without arguments.
func decodeArgs(raw json.RawMessage, spec history.ToolSpec, params any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return fmt.Errorf("the arguments must be a JSON object such as %s, not %s", exampleArgs(spec), jsonKind(raw))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("the arguments are not valid JSON: %v", err)
	}

	names := make([]string, len(spec.Params))
	for i, p := range spec.Params {
		names[i] = p.Name
	}
	// Unknown arguments first, sorted so the message is the same every time.
	var unknown []string
	for name := range fields {
		if !slices.Contains(names, name) {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("unknown argument %s; %s takes: %s", strings.Join(unknown, ", "), spec.Name, strings.Join(names, ", "))
	}
	for _, p := range spec.Params {
		value, present := fields[p.Name]
		if !present || string(bytes.TrimSpace(value)) == "null" {
			if p.Required {
				return fmt.Errorf("missing required argument %q (%s)", p.Name, p.Description)
			}
			continue
		}
		if err := checkType(p, value); err != nil {
			return err
		}
	}

	// The checks above should leave nothing for the decoder to reject; it
	// still refuses unknown fields in case the spec and the struct disagree.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(params); err != nil {
		return fmt.Errorf("the arguments do not fit %s: %v", spec.Name, err)
	}
	return nil
}

// checkType reports a value whose JSON type is not the one the spec declares.
func checkType(p history.ParamSpec, value json.RawMessage) error {
	value = bytes.TrimSpace(value)
	if len(value) == 0 {
		return fmt.Errorf("argument %q has no value", p.Name)
	}
	ok := false
	want := ""
	switch p.Type {
	case history.TypeString:
		ok, want = value[0] == '"', "a string"
	case history.TypeBoolean:
		ok, want = string(value) == "true" || string(value) == "false", "true or false"
	case history.TypeInteger:
		var n int64
		ok, want = json.Unmarshal(value, &n) == nil, "a whole number"
	case history.TypeArray:
		var list []string
		ok, want = value[0] == '[' && json.Unmarshal(value, &list) == nil, "an array of strings"
	default:
		return fmt.Errorf("argument %q has an unsupported type %q in the tool's spec", p.Name, p.Type)
	}
	if !ok {
		return fmt.Errorf("argument %q must be %s, not %s", p.Name, want, jsonKind(value))
	}
	return nil
}

// jsonKind names the JSON type of a value for error messages: "a string",
// "a number", ...
func jsonKind(value []byte) string {
	switch {
	case len(value) == 0:
		return "nothing"
	case value[0] == '"':
		return "a string"
	case value[0] == '[':
		return "an array"
	case value[0] == '{':
		return "an object"
	case string(value) == "true" || string(value) == "false":
		return "a boolean"
	case string(value) == "null":
		return "null"
	case value[0] == '-' || (value[0] >= '0' && value[0] <= '9'):
		return "a number"
	}
	return "invalid JSON"
}

// exampleArgs shows the shape a tool's arguments take, built from its spec:
// {"path": "...", "content": "..."}.
func exampleArgs(spec history.ToolSpec) string {
	parts := make([]string, 0, len(spec.Params))
	for _, p := range spec.Params {
		example := `"..."`
		switch p.Type {
		case history.TypeBoolean:
			example = "true"
		case history.TypeInteger:
			example = "1"
		case history.TypeArray:
			example = `["..."]`
		}
		parts = append(parts, fmt.Sprintf("%q: %s", p.Name, example))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// resolveFailure is the Result for a path the workspace would not resolve:
// a refusal if it leads outside, otherwise the reason.
func resolveFailure(err error) Result {
	if errors.Is(err, ErrOutsideWorkspace) {
		return failure("refused: %v", err)
	}
	return failure("%v", err)
}

// fileFailure is the Result for a file operation on shown that failed: the
// system's reason ("cannot read notes.txt: permission denied"), or a refusal
// when the workspace's os.Root would not follow a symbolic link out of the
// workspace. That happens only when the path changed after it was checked
// (a racing process swapped a file or folder for such a link); nothing
// outside was touched.
func fileFailure(doing, shown string, err error) Result {
	if escapesRoot(err) {
		return failure("refused: %s now leads outside the workspace (a symbolic link on the way was changed after the path was checked); nothing outside it was touched", shown)
	}
	return failure("cannot %s %s: %v", doing, shown, unwrapPathError(err))
}

// escapesRoot reports whether err is os.Root's refusal of a path that leads
// out of its folder. The standard library does not export that error, so it
// is recognised by its text, which TestEscapesRoot pins.
func escapesRoot(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// failure is a Result the model should repair: the tool ran into a problem
// the model caused or can work around.
func failure(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}
