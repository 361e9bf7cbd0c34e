package ollama

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/history"
)

func TestParseReplyAccepts(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		thought   string
		tool      string // empty for a final response
		input     string
		response  string
		extracted string // empty: the whole trimmed raw text
		notes     []string
	}{
		{
			name:    "tool call",
			raw:     `{"thought": "I should look at the files.", "tool_call": {"name": "list_files", "input": {"path": "."}}}`,
			thought: "I should look at the files.", tool: "list_files", input: `{"path":"."}`,
		},
		{
			name:    "final response",
			raw:     `{"thought": "Done.", "response": "There are 3 files."}`,
			thought: "Done.", response: "There are 3 files.",
		},
		{
			name:    "surrounding white space",
			raw:     "\n\n  {\"thought\": \"t\", \"response\": \"r\"}  \n",
			thought: "t", response: "r",
			extracted: `{"thought": "t", "response": "r"}`,
		},
		{
			name:    "json code fence",
			raw:     "```json\n{\"thought\": \"t\", \"response\": \"r\"}\n```",
			thought: "t", response: "r",
			extracted: `{"thought": "t", "response": "r"}`,
			notes:     []string{"took the object out of a code fence"},
		},
		{
			name:    "bare code fence with prose after",
			raw:     "```\n{\"thought\": \"t\", \"response\": \"r\"}\n```\nLet me know if you need more.",
			thought: "t", response: "r",
			extracted: `{"thought": "t", "response": "r"}`,
			notes:     []string{"took the object out of a code fence", "ignored text after the object"},
		},
		{
			name:    "prose before",
			raw:     "Sure! Here is my reply:\n{\"thought\": \"t\", \"tool_call\": {\"name\": \"read_file\", \"input\": {\"path\": \"a.go\"}}}",
			thought: "t", tool: "read_file", input: `{"path":"a.go"}`,
			extracted: `{"thought": "t", "tool_call": {"name": "read_file", "input": {"path": "a.go"}}}`,
			notes:     []string{"ignored text before the object"},
		},
		{
			name:    "prose before with braces of its own",
			raw:     `I will use {read_file} now: {"thought": "t", "tool_call": {"name": "read_file", "input": {"path": "a.go"}}}`,
			thought: "t", tool: "read_file", input: `{"path":"a.go"}`,
			extracted: `{"thought": "t", "tool_call": {"name": "read_file", "input": {"path": "a.go"}}}`,
			notes:     []string{"ignored text before the object"},
		},
		{
			name:    "two objects: the first wins",
			raw:     `{"thought": "a", "tool_call": {"name": "list_files", "input": {}}} {"thought": "b", "response": "guessing the result"}`,
			thought: "a", tool: "list_files", input: `{}`,
			extracted: `{"thought": "a", "tool_call": {"name": "list_files", "input": {}}}`,
			notes:     []string{"ignored a second JSON object after the first"},
		},
		{
			name:     "braces and quotes inside strings",
			raw:      `{"thought": "use {x} and \"}\"", "response": "a } b { c"}`,
			thought:  `use {x} and "}"`,
			response: "a } b { c",
		},
		{
			name:    "Japanese text",
			raw:     `{"thought": "メモを読みます。", "tool_call": {"name": "read_file", "input": {"path": "メモ.txt"}}}`,
			thought: "メモを読みます。", tool: "read_file", input: `{"path":"メモ.txt"}`,
		},
		{
			name:    "input missing: a call without arguments",
			raw:     `{"thought": "t", "tool_call": {"name": "list_files"}}`,
			thought: "t", tool: "list_files", input: `{}`,
		},
		{
			name:    "input null",
			raw:     `{"thought": "t", "tool_call": {"name": "list_files", "input": null}}`,
			thought: "t", tool: "list_files", input: `{}`,
		},
		{
			name:    "response null next to a tool call",
			raw:     `{"thought": "t", "tool_call": {"name": "list_files", "input": {}}, "response": null}`,
			thought: "t", tool: "list_files", input: `{}`,
		},
		{
			name:    "input keeps the model's key order",
			raw:     `{"thought": "t", "tool_call": {"name": "write_file", "input": {"path": "b.txt", "content": "x\ny", "append": false}}}`,
			thought: "t", tool: "write_file", input: `{"path":"b.txt","content":"x\ny","append":false}`,
		},
		{
			name: "no thought",
			raw:  `{"response": "hi"}`, response: "hi",
		},
		{
			name:    "unknown keys are noted",
			raw:     `{"thought": "t", "response": "r", "confidence": 0.9}`,
			thought: "t", response: "r",
			notes: []string{`ignored unknown keys "confidence"`},
		},
		{
			name:    "wrapped in an array",
			raw:     `[{"thought": "t", "response": "r"}]`,
			thought: "t", response: "r",
			extracted: `{"thought": "t", "response": "r"}`,
			notes:     []string{"ignored text before the object", "ignored text after the object"},
		},
		{
			name:    "a stray brace before the object",
			raw:     `{{"thought": "t", "response": "r"}`,
			thought: "t", response: "r",
			extracted: `{"thought": "t", "response": "r"}`,
			notes:     []string{"ignored text before the object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, step := ParseReply(tt.raw)
			if reply == nil {
				t.Fatalf("ParseReply failed: %s", step.Error)
			}
			if step.Error != "" {
				t.Errorf("step.Error = %q on success", step.Error)
			}
			if step.Raw != tt.raw {
				t.Errorf("step.Raw = %q, want the input", step.Raw)
			}
			wantExtracted := tt.extracted
			if wantExtracted == "" {
				wantExtracted = strings.TrimSpace(tt.raw)
			}
			if step.Extracted != wantExtracted {
				t.Errorf("step.Extracted = %q, want %q", step.Extracted, wantExtracted)
			}
			if reply.Thought != tt.thought {
				t.Errorf("Thought = %q, want %q", reply.Thought, tt.thought)
			}
			switch {
			case tt.tool == "" && reply.ToolCall != nil:
				t.Errorf("got tool call %+v, want the response %q", reply.ToolCall, tt.response)
			case tt.tool == "" && reply.Response != tt.response:
				t.Errorf("Response = %q, want %q", reply.Response, tt.response)
			case tt.tool != "" && reply.ToolCall == nil:
				t.Errorf("got the response %q, want a call to %s", reply.Response, tt.tool)
			case tt.tool != "":
				if reply.ToolCall.Name != tt.tool || string(reply.ToolCall.Input) != tt.input {
					t.Errorf("ToolCall = %s %s, want %s %s", reply.ToolCall.Name, reply.ToolCall.Input, tt.tool, tt.input)
				}
			}
			if strings.Join(reply.Notes, "; ") != strings.Join(tt.notes, "; ") {
				t.Errorf("Notes = %q, want %q", reply.Notes, tt.notes)
			}
			wantOutcome := "response"
			if tt.tool != "" {
				wantOutcome = "tool_call " + tt.tool + " " + tt.input
			}
			if !strings.HasPrefix(step.Outcome, wantOutcome) {
				t.Errorf("Outcome = %q, want it to start with %q", step.Outcome, wantOutcome)
			}
		})
	}
}

func TestParseReplyRejects(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string // the exact error
	}{
		{"empty", "", "the reply is empty; it must be one JSON object"},
		{"only white space", " \n\t", "the reply is empty; it must be one JSON object"},
		{"prose only", "Sure! I will read the file now.", "no JSON object found in the reply (it starts `Sure! I will`)"},
		{"both", `{"thought": "t", "tool_call": {"name": "a", "input": {}}, "response": "r"}`,
			`reply has both "tool_call" and "response"; send exactly one of them`},
		{"neither", `{"thought": "t"}`, `reply has neither "tool_call" nor "response" (its keys: "thought")`},
		{"neither, empty object", `{}`, `reply has neither "tool_call" nor "response" (its keys: none)`},
		{"tool_call is a string", `{"thought": "t", "tool_call": "read_file"}`,
			`"tool_call" must be an object like {"name": "...", "input": {...}}, not a string`},
		{"name missing", `{"tool_call": {"input": {"path": "a"}}}`, `"tool_call" has no "name" (its keys: "input")`},
		{"name empty", `{"tool_call": {"name": " ", "input": {}}}`, `"tool_call.name" is empty; it must name one of the tools`},
		{"name a number", `{"tool_call": {"name": 7, "input": {}}}`, `"tool_call.name" must be a string, not a number`},
		{"input an array", `{"tool_call": {"name": "a", "input": ["x"]}}`, `"tool_call.input" must be a JSON object, not an array`},
		{"input a JSON string", `{"tool_call": {"name": "a", "input": "{\"path\": \"x\"}"}}`, `"tool_call.input" must be a JSON object, not a string`},
		{"arguments instead of input", `{"tool_call": {"name": "read_file", "arguments": {"path": "a"}}}`,
			`"tool_call" has no "input" but has "arguments"; put the tool's arguments in "input"`},
		{"response an object", `{"thought": "t", "response": {"text": "hi"}}`, `"response" must be a string, not an object`},
		{"thought a number", `{"thought": 1, "response": "r"}`, `"thought" must be a string, not a number`},
		{"truncated", `{"thought": "I will read`, "the reply ends before the JSON object that opens at offset 0 is complete (was it cut off?)"},
		{"truncated after prose", "OK:\n{\"thought\": \"t\", \"tool_call\": {\"name\": \"a\"",
			"the reply ends before the JSON object that opens at offset 4 is complete (was it cut off?)"},
		{"truncated after prose with braces", `Calling {read_file}: {"thought": "t", "tool_call": {"name": "a"`,
			"the reply ends before the JSON object that opens at offset 21 is complete (was it cut off?)"},
		{"not a reply after prose with braces", `Use {path}: {"thought": "t"}`,
			`reply has neither "tool_call" nor "response" (its keys: "thought")`},
		{"single quotes", `{'thought': 'x'}`,
			"invalid JSON at offset 1 (near `{'thou`): invalid character '\\'' looking for beginning of object key string"},
		{"trailing comma hides an inner object", `{"thought": "t", "tool_call": {"name": "a", "input": {}},}`,
			"invalid JSON at offset 57 (near `, \"input\": {}},}`): invalid character '}' looking for beginning of object key string"},
		{"bad escape before an inner object", `{"thought": "a \q", "tool_call": {"name": "a", "input": {}}}`,
			"invalid JSON at offset 16 (near `\"thought\": \"a \\q\", \"`): invalid character 'q' in string escape code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, step := ParseReply(tt.raw)
			if reply != nil {
				t.Fatalf("ParseReply accepted %q as %+v", tt.raw, reply)
			}
			if step.Error != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", step.Error, tt.want)
			}
			if step.Outcome != "malformed: "+tt.want {
				t.Errorf("Outcome = %q", step.Outcome)
			}
			if step.Raw != tt.raw {
				t.Errorf("step.Raw = %q, want the input", step.Raw)
			}
		})
	}
}

func TestMalformedFeedbackQuotesTheErrorAndTheShape(t *testing.T) {
	tests := []struct {
		name   string
		cutOff bool
		want   []string
		absent []string
	}{
		{"plain", false, []string{`Your last reply could not be used: reply has both "tool_call" and "response".`, toolCallShape, responseShape}, []string{"token limit"}},
		{"cut off", true, []string{"token limit", toolCallShape}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := malformedFeedback(`reply has both "tool_call" and "response"`, tt.cutOff)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("feedback lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("feedback has %q:\n%s", a, got)
				}
			}
		})
	}
}

// sampleTools are the tools the request tests and prompt tests offer.
func sampleTools() []history.ToolSpec {
	return []history.ToolSpec{
		{Name: "read_file", Description: "Read a file in the workspace.", Params: []history.ParamSpec{
			{Name: "path", Type: history.TypeString, Description: "File path, relative to the workspace.", Required: true, Path: true},
			{Name: "max_lines", Type: history.TypeInteger, Description: "Stop after this many lines."},
		}},
		{Name: "list_files", Description: "List the files in a folder.", Params: []history.ParamSpec{
			{Name: "path", Type: history.TypeString, Description: "Folder path.", Required: true, Path: true},
			{Name: "patterns", Type: history.TypeArray, Description: "Glob patterns to keep."},
			{Name: "hidden", Type: history.TypeBoolean, Description: "Include hidden files."},
		}},
	}
}

func TestJSONModeSystemPrompt(t *testing.T) {
	tests := []struct {
		name   string
		system string
		tools  []history.ToolSpec
		want   []string
		absent []string
	}{
		{
			name:   "with tools",
			system: "You are a coding assistant.",
			tools:  sampleTools(),
			want: []string{
				"You are a coding assistant.\n\n## Tools",
				"### read_file\nRead a file in the workspace.\nParameters:\n- path (string, required): File path, relative to the workspace.\n- max_lines (integer, optional): Stop after this many lines.\n",
				"- patterns (array of strings, optional): Glob patterns to keep.\n",
				"- hidden (boolean, optional): Include hidden files.\n",
				toolCallShape,
				`{"thought": "why this call is the next step", "tool_call": {"name": "read_file", "input": {"path": "..."}}}`,
				responseShape,
				`{"tool_result": {"name": "<tool name>", "result": "..."}}`,
				`"is_error": true`,
			},
		},
		{
			name:   "without tools",
			system: "Be brief.",
			want:   []string{"Be brief.\n\n## How to reply", responseShape},
			absent: []string{"## Tools", toolCallShape, "tool_result"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JSONModeSystemPrompt(tt.system, tt.tools)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("prompt lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("prompt has %q:\n%s", a, got)
				}
			}
		})
	}
}

// The example in the prompt must itself be a reply the parser accepts.
func TestPromptExampleParses(t *testing.T) {
	for _, tool := range sampleTools() {
		t.Run(tool.Name, func(t *testing.T) {
			reply, step := ParseReply(exampleToolCall(tool))
			if reply == nil {
				t.Fatalf("the prompt's example does not parse: %s", step.Error)
			}
			if reply.ToolCall == nil || reply.ToolCall.Name != tool.Name {
				t.Errorf("example parses as %+v, want a call to %s", reply, tool.Name)
			}
		})
	}
}

func TestReplySchema(t *testing.T) {
	tests := []struct {
		name  string
		tools []history.ToolSpec
		want  string
	}{
		{
			name:  "no tools: only a response",
			tools: nil,
			want:  `{"type":"object","properties":{"thought":{"type":"string"},"response":{"type":"string"}},"required":["thought","response"]}`,
		},
		{
			name:  "one tool",
			tools: []history.ToolSpec{{Name: "list_files", Params: []history.ParamSpec{{Name: "path", Type: history.TypeString, Required: true}, {Name: "globs", Type: history.TypeArray}}}},
			want: `{"anyOf":[` +
				`{"type":"object","properties":{"thought":{"type":"string"},"tool_call":{"anyOf":[` +
				`{"type":"object","properties":{"name":{"type":"string","enum":["list_files"]},"input":{"type":"object","properties":{"path":{"type":"string"},"globs":{"type":"array","items":{"type":"string"}}},"required":["path"]}},"required":["name","input"]}` +
				`]}},"required":["thought","tool_call"]},` +
				`{"type":"object","properties":{"thought":{"type":"string"},"response":{"type":"string"}},"required":["thought","response"]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReplySchema(tt.tools)
			if string(got) != tt.want {
				t.Errorf("schema\n got: %s\nwant: %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("schema is not valid JSON")
			}
		})
	}
}
