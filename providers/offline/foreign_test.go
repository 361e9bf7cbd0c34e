package offline

import (
	"encoding/json"
	"testing"
)

// Tools are bound to roles by what they are for; glassbox's own tools are
// read as they are; paths go absolute where a tool asks for them, and come
// back relative.
func TestBindRoles(t *testing.T) {
	decl := func(name, schema string) DeclaredTool { return ReadDeclared(name, json.RawMessage(schema)) }
	own := bindRoles([]DeclaredTool{
		decl("list_files", `{"properties":{"path":{}}}`), decl("read_file", `{"properties":{"path":{}}}`),
		decl("execute_command", `{"properties":{"command":{}}}`),
	})
	if own.foreign() {
		t.Fatal("glassbox's own tools are taken for a foreign agent's")
	}
	r := bindRoles([]DeclaredTool{
		decl("read", `{"properties":{"filePath":{"description":"The absolute path to the file to read"}}}`),
		decl("bash", `{"properties":{"command":{"description":"The command"}}}`),
	})
	r.workdir = "/home/p/proj"
	if !r.foreign() || r.bound[roleRead].tool != "read" || r.bound[roleList].via != roleRun {
		t.Fatalf("%+v", r.bound)
	}
	out := r.outward(Reply{Calls: []ToolCall{{Name: "read_file", Args: Args{{"path", "hello.py"}}}, {Name: "list_files", Args: Args{{"path", "."}}}}}, english)
	got, _ := json.Marshal([]any{out.Calls[0].Name, out.Calls[0].Args, out.Calls[1].Name, out.Calls[1].Args})
	if string(got) != `["read",{"filePath":"/home/p/proj/hello.py"},"bash",{"command":"ls"}]` {
		t.Fatalf("outward %s", got)
	}
	back := r.inCall(ToolCall{Name: "read", Args: Args{{"filePath", "/home/p/proj/hello.py"}}})
	if back.Name != "read_file" || back.Args.str("path") != "hello.py" {
		t.Fatalf("inward %+v", back)
	}
	if back := r.inCall(ToolCall{Name: "bash", Args: Args{{"command", "ls"}}}); back.Name != "list_files" || back.Args.str("path") != "." {
		t.Fatalf("a listing through the shell reads back as %+v", back)
	}
	none := bindRoles([]DeclaredTool{decl("web_fetch", `{"properties":{"url":{}}}`)})
	if rep := none.outward(Reply{Calls: []ToolCall{{Name: "write_file", Args: Args{{"path", "a.txt"}}}}}, japanese); len(rep.Calls) != 0 || rep.Text == "" {
		t.Fatalf("unmapped %+v", rep)
	}
}

// Agents say where they work in their own words.
func TestWorkdirIn(t *testing.T) {
	for text, want := range map[string]string{
		"<env>\n  Working directory: /home/p/proj\n  Platform: linux": "/home/p/proj",
		"- **Workspace Directories:**\n  - /work/agents/wire/proj\n":  "/work/agents/wire/proj",
		"I'm currently working in the directory: /tmp/x.":             "/tmp/x",
		"no directory here": "",
	} {
		if got := workdirIn(text); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}
