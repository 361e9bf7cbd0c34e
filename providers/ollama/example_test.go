package ollama_test

import (
	"fmt"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/providers/ollama"
)

// The JSON-mode system prompt for two tools, exactly as Llama receives it.
func ExampleJSONModeSystemPrompt() {
	tools := []history.ToolSpec{
		{Name: "read_file", Description: "Read a file in the workspace.", Params: []history.ParamSpec{
			{Name: "path", Type: history.TypeString, Description: "File path, relative to the workspace.", Required: true},
		}},
		{Name: "write_file", Description: "Write a file in the workspace.", Params: []history.ParamSpec{
			{Name: "path", Type: history.TypeString, Description: "File path, relative to the workspace.", Required: true},
			{Name: "content", Type: history.TypeString, Description: "The whole new content.", Required: true},
		}},
	}
	fmt.Print(ollama.JSONModeSystemPrompt("You are a coding assistant working in a small Go project.", tools))
	// Output:
	// You are a coding assistant working in a small Go project.
	//
	// ## Tools
	//
	// You can call these tools. Each one takes a JSON object as its input.
	//
	// ### read_file
	// Read a file in the workspace.
	// Parameters:
	// - path (string, required): File path, relative to the workspace.
	//
	// ### write_file
	// Write a file in the workspace.
	// Parameters:
	// - path (string, required): File path, relative to the workspace.
	// - content (string, required): The whole new content.
	//
	// ## How to reply
	//
	// Reply with exactly one JSON object and nothing else: no text before or after it, no code fences.
	//
	// To call a tool:
	// {"thought": "...", "tool_call": {"name": "<tool name>", "input": {...}}}
	// For example:
	// {"thought": "why this call is the next step", "tool_call": {"name": "read_file", "input": {"path": "..."}}}
	//
	// To give your final answer:
	// {"thought": "...", "response": "<your final answer>"}
	//
	// Use "tool_call" or "response", never both, and call one tool per reply.
	// The result of each call comes back in a user message of the form
	// {"tool_result": {"name": "<tool name>", "result": "..."}}
	// with "is_error": true added when the call failed or was denied.
	// Read it, then decide your next step.
}

// A reply wrapped the way models often wrap it, and what the parser made of it.
func ExampleParseReply() {
	raw := "Sure! Here is my reply:\n```json\n{\"thought\": \"Read the README first.\", \"tool_call\": {\"name\": \"read_file\", \"input\": {\"path\": \"README.md\"}}}\n```"
	reply, step := ollama.ParseReply(raw)
	fmt.Println("extracted:", step.Extracted)
	fmt.Println("outcome:  ", step.Outcome)
	fmt.Println("thought:  ", reply.Thought)

	_, step = ollama.ParseReply(`{"thought": "Done.", "tool_call": {"name": "read_file", "input": {}}, "response": "Bye."}`)
	fmt.Println("error:    ", step.Error)
	// Output:
	// extracted: {"thought": "Read the README first.", "tool_call": {"name": "read_file", "input": {"path": "README.md"}}}
	// outcome:   tool_call read_file {"path":"README.md"} (took the object out of a code fence; ignored text before the object)
	// thought:   Read the README first.
	// error:     reply has both "tool_call" and "response"; send exactly one of them
}
