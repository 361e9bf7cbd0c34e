package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/history"
)

// namedTool is a minimal Tool for registry tests.
type namedTool struct{ name string }

func (n namedTool) Spec() history.ToolSpec { return history.ToolSpec{Name: n.name} }
func (n namedTool) Run(context.Context, json.RawMessage) (Result, error) {
	return Result{Content: n.name}, nil
}

func TestDefaultRegistry(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	r := Default(ws, &fakeAsker{}, time.Second)

	want := []string{ReadFileName, WriteFileName, ListFilesName, ExecuteCommandName, AskUserName}
	if got := r.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	specs := r.Specs()
	if len(specs) != len(want) {
		t.Fatalf("Specs() has %d entries, want %d", len(specs), len(want))
	}
	for i, name := range want {
		t.Run(name, func(t *testing.T) {
			if specs[i].Name != name {
				t.Errorf("Specs()[%d].Name = %q, want %q", i, specs[i].Name, name)
			}
			tool, ok := r.Get(name)
			if !ok {
				t.Fatalf("Get(%q) found nothing", name)
			}
			if tool.Spec().Name != name {
				t.Errorf("Get(%q) returned the tool %q", name, tool.Spec().Name)
			}
		})
	}
	if _, ok := r.Get("delete_everything"); ok {
		t.Error("Get of an unknown tool succeeded")
	}
}

func TestNewRegistryErrors(t *testing.T) {
	tests := []struct {
		name    string
		tools   []Tool
		wantErr string
	}{
		{name: "duplicate names", tools: []Tool{namedTool{"a"}, namedTool{"b"}, namedTool{"a"}}, wantErr: `two tools are named "a"`},
		{name: "empty name", tools: []Tool{namedTool{"a"}, namedTool{""}}, wantErr: "tool 2 has no name"},
		{name: "nil tool", tools: []Tool{nil}, wantErr: "tool 1 is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRegistry(tt.tools...)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("NewRegistry = %v, %v; want the error %q", r, err, tt.wantErr)
			}
		})
	}
}

func TestNewRegistryKeepsOrder(t *testing.T) {
	r, err := NewRegistry(namedTool{"zeta"}, namedTool{"alpha"}, namedTool{"mid"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Names(), []string{"zeta", "alpha", "mid"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want the order given, %v", got, want)
	}
	empty, err := NewRegistry()
	if err != nil || len(empty.Names()) != 0 || len(empty.Specs()) != 0 {
		t.Errorf("an empty registry: %v, %v", empty.Names(), err)
	}
}

func TestRegistryPreview(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	r := Default(ws, nil, 0)
	tests := []struct {
		name     string
		tool     string
		args     string
		contains string // "" means no preview
	}{
		{name: "write_file has a diff", tool: WriteFileName, args: `{"path":"a.txt","content":"x\n"}`, contains: "+x"},
		{name: "execute_command shows the command", tool: ExecuteCommandName, args: `{"command":"ls"}`, contains: "$ ls"},
		{name: "read_file has none", tool: ReadFileName, args: `{"path":"a.txt"}`},
		{name: "unknown tool has none", tool: "nope", args: `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Preview(tt.tool, []byte(tt.args))
			if tt.contains == "" && got != "" {
				t.Errorf("Preview = %q, want none", got)
			}
			if tt.contains != "" && !strings.Contains(got, tt.contains) {
				t.Errorf("Preview = %q, want it to contain %q", got, tt.contains)
			}
		})
	}
}
