package tools

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
)

// TestStrictArgs sends every tool arguments it must refuse, and checks the
// message names what is wrong.
func TestStrictArgs(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"hello.py": "print()\n"})
	asker := &fakeAsker{answer: "yes"}
	tests := []struct {
		name    string
		tool    Tool
		args    string
		wantMsg []string
	}{
		{name: "read_file unknown field", tool: NewReadFile(ws), args: `{"path":"hello.py","mode":"fast"}`,
			wantMsg: []string{`unknown argument "mode"`, "read_file takes: path"}},
		{name: "read_file wrong type", tool: NewReadFile(ws), args: `{"path":3}`,
			wantMsg: []string{`argument "path" must be a string, not a number`}},
		{name: "read_file missing path", tool: NewReadFile(ws), args: `{}`,
			wantMsg: []string{`missing required argument "path"`}},
		{name: "read_file null path", tool: NewReadFile(ws), args: `{"path":null}`,
			wantMsg: []string{`missing required argument "path"`}},
		{name: "read_file empty args", tool: NewReadFile(ws), args: ``,
			wantMsg: []string{`missing required argument "path"`}},
		{name: "read_file args are a string", tool: NewReadFile(ws), args: `"hello.py"`,
			wantMsg: []string{"must be a JSON object", `{"path": "..."}`, "not a string"}},
		{name: "read_file args are an array", tool: NewReadFile(ws), args: `["hello.py"]`,
			wantMsg: []string{"must be a JSON object", "not an array"}},
		{name: "read_file invalid JSON", tool: NewReadFile(ws), args: `{"path": "hello.py"`,
			wantMsg: []string{"not valid JSON"}},
		{name: "read_file trailing data", tool: NewReadFile(ws), args: `{"path": "hello.py"} {}`,
			wantMsg: []string{"not valid JSON"}},
		{name: "write_file missing content", tool: NewWriteFile(ws), args: `{"path":"a.txt"}`,
			wantMsg: []string{`missing required argument "content"`}},
		{name: "write_file content not a string", tool: NewWriteFile(ws), args: `{"path":"a.txt","content":["x"]}`,
			wantMsg: []string{`argument "content" must be a string, not an array`}},
		{name: "list_files recursive as string", tool: NewListFiles(ws), args: `{"recursive":"true"}`,
			wantMsg: []string{`argument "recursive" must be true or false, not a string`}},
		{name: "list_files unknown field", tool: NewListFiles(ws), args: `{"dir":"."}`,
			wantMsg: []string{`unknown argument "dir"`, "list_files takes: path, recursive"}},
		{name: "execute_command missing command", tool: NewExecuteCommand(ws, time.Second), args: `{"cmd":"ls"}`,
			wantMsg: []string{`unknown argument "cmd"`}},
		{name: "execute_command command is a number", tool: NewExecuteCommand(ws, time.Second), args: `{"command":42}`,
			wantMsg: []string{`argument "command" must be a string, not a number`}},
		{name: "ask_user options of numbers", tool: NewAskUser(asker), args: `{"question":"ok?","options":[1,2]}`,
			wantMsg: []string{`argument "options" must be an array of strings, not an array`}},
		{name: "ask_user options as a string", tool: NewAskUser(asker), args: `{"question":"ok?","options":"yes"}`,
			wantMsg: []string{`argument "options" must be an array of strings, not a string`}},
		{name: "ask_user missing question", tool: NewAskUser(asker), args: `{"options":["yes"]}`,
			wantMsg: []string{`missing required argument "question"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, tt.tool, tt.args)
			if !res.IsError {
				t.Fatalf("Run(%s) = %q, want an error result", tt.args, res.Content)
			}
			for _, want := range tt.wantMsg {
				if !strings.Contains(res.Content, want) {
					t.Errorf("Run(%s) = %q, want it to contain %q", tt.args, res.Content, want)
				}
			}
		})
	}
	if asker.calls != 0 {
		t.Errorf("the asker was asked %d times by calls with bad arguments, want 0", asker.calls)
	}
}

// TestNullArgsMeanNoArgs: some providers send null for a call without
// arguments; list_files has none required, so it must work.
func TestNullArgsMeanNoArgs(t *testing.T) {
	ws := newTestWorkspace(t, map[string]string{"a.txt": "a"})
	for _, args := range []string{"null", "", "  ", "{}"} {
		t.Run("args "+strings.TrimSpace(args), func(t *testing.T) {
			res := run(t, NewListFiles(ws), args)
			if res.IsError || res.Content != "a.txt" {
				t.Errorf("list_files(%q) = %+v, want the listing \"a.txt\"", args, res)
			}
		})
	}
}

// TestSpecsMatchParams checks each tool's spec against its params struct:
// the same names, in the same order, with path parameters marked.
func TestSpecsMatchParams(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	tests := []struct {
		name      string
		tool      Tool
		params    any
		wantPaths []string
	}{
		{name: ReadFileName, tool: NewReadFile(ws), params: ReadFileParams{}, wantPaths: []string{"path"}},
		{name: WriteFileName, tool: NewWriteFile(ws), params: WriteFileParams{}, wantPaths: []string{"path"}},
		{name: ListFilesName, tool: NewListFiles(ws), params: ListFilesParams{}, wantPaths: []string{"path"}},
		{name: ExecuteCommandName, tool: NewExecuteCommand(ws, 0), params: ExecuteCommandParams{}},
		{name: AskUserName, tool: NewAskUser(nil), params: AskUserParams{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.tool.Spec()
			if spec.Name != tt.name {
				t.Errorf("Spec().Name = %q, want %q", spec.Name, tt.name)
			}
			if spec.Description == "" {
				t.Error("Spec().Description is empty; the model needs to know what the tool does")
			}
			typ := reflect.TypeOf(tt.params)
			if typ.NumField() != len(spec.Params) {
				t.Fatalf("%s has %d fields but the spec lists %d params", typ, typ.NumField(), len(spec.Params))
			}
			var paths []string
			for i, p := range spec.Params {
				tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
				if tag != p.Name {
					t.Errorf("param %d: spec says %q, struct field %s has json tag %q", i, p.Name, typ.Field(i).Name, tag)
				}
				if p.Description == "" {
					t.Errorf("param %q has no description", p.Name)
				}
				if p.Path {
					paths = append(paths, p.Name)
				}
			}
			if !reflect.DeepEqual(paths, tt.wantPaths) {
				t.Errorf("path params = %v, want %v", paths, tt.wantPaths)
			}
		})
	}
}

func TestJSONKind(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  string
	}{
		{name: "string", value: `"x"`, want: "a string"},
		{name: "number", value: `-1.5`, want: "a number"},
		{name: "bool", value: `false`, want: "a boolean"},
		{name: "null", value: `null`, want: "null"},
		{name: "array", value: `[]`, want: "an array"},
		{name: "object", value: `{}`, want: "an object"},
		{name: "empty", value: ``, want: "nothing"},
		{name: "garbage", value: `?`, want: "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsonKind([]byte(tt.value)); got != tt.want {
				t.Errorf("jsonKind(%s) = %q, want %q", tt.value, got, tt.want)
			}
		})
	}
}

func TestCheckTypeInteger(t *testing.T) {
	p := history.ParamSpec{Name: "n", Type: history.TypeInteger}
	tests := []struct {
		name  string
		value string
		ok    bool
	}{
		{name: "whole number", value: "3", ok: true},
		{name: "fraction", value: "3.5"},
		{name: "string", value: `"3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkType(p, []byte(tt.value))
			if (err == nil) != tt.ok {
				t.Errorf("checkType(%s) = %v, want ok=%v", tt.value, err, tt.ok)
			}
		})
	}
}

// FuzzDecodeArgs checks that no argument bytes make decodeArgs panic.
func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{`{"path":"a"}`, `null`, `[`, `{"path":1}`, `{"options":[1]}`, `{"path":"a","recursive":tru}`, "\x00"} {
		f.Add([]byte(seed))
	}
	spec := history.ToolSpec{Name: "fuzz", Params: []history.ParamSpec{
		{Name: "path", Type: history.TypeString, Required: true},
		{Name: "recursive", Type: history.TypeBoolean},
		{Name: "options", Type: history.TypeArray},
		{Name: "n", Type: history.TypeInteger},
	}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var p struct {
			Path      string   `json:"path"`
			Recursive bool     `json:"recursive"`
			Options   []string `json:"options"`
			N         int      `json:"n"`
		}
		_ = decodeArgs(raw, spec, &p)
	})
}

// TestNonObjectArgs: arguments that are not a JSON object get one short
// sentence naming the shape wanted, from every tool.
func TestNonObjectArgs(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	reg := Default(ws, &fakeAsker{answer: "yes"}, time.Second)
	for _, name := range reg.Names() {
		tool, _ := reg.Get(name)
		for _, args := range []string{`[1,2]`, `"x"`, `1`, `true`, `[{"path":"a"}]`} {
			res := run(t, tool, args)
			if !res.IsError || !strings.Contains(res.Content, "the arguments must be a JSON object such as {") ||
				strings.Contains(res.Content, "map[") || len(res.Content) > 160 {
				t.Errorf("%s(%s) = %q, want one short sentence asking for a JSON object", name, args, res.Content)
			}
		}
	}
}
