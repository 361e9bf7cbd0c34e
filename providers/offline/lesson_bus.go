package offline

import (
	"fmt"
	"strings"
)

// busAskTool ends the name of another glass box's ask_agent tool, attached
// with --mcp NAME="glassbox mcp-serve …" (NAME__ask_agent).
const busAskTool = "__ask_agent"

// mcpBusScript is the mcp-bus lesson. Its request arrives over the MCP bus
// (an in-process client calls this glass box's ask_agent tool), so the
// answer goes back as that call's result: the model lists the workspace
// and answers the caller. With another glass box attached (--mcp
// other="glassbox mcp-serve --offline"), the model is the caller instead:
// it asks the other box for a tour and quotes what came back.
func mcpBusScript(c conversation) reply {
	for _, tool := range c.mcpTools {
		if strings.HasSuffix(tool, busAskTool) {
			return askOtherBox(c, tool)
		}
	}
	list, listed := c.resultFor("list_files", "", "")
	if !listed {
		return callReply("This request came over the MCP bus, from a program rather than a person typing. I will look at the workspace, and my answer will go back to that program as its tool call's result.",
			toolCall{Name: "list_files", Args: args{{"path", "."}}})
	}
	if list.IsError {
		return finalReply(fmt.Sprintf("For the caller on the MCP bus: I could not list the files: %s (offline tutor)", firstLine(list.Content)))
	}
	return finalReply(fmt.Sprintf("For the caller on the MCP bus: the workspace holds %s.\n"+
		"This answer leaves glassbox as the result of the caller's tools/call (ask_agent): watch the frame go back in the DELIVERING_OUTPUT step. (offline tutor)",
		summarizeListing(list.Content)))
}

// askOtherBox asks another glass box, through its ask_agent tool, for the
// tour lesson.
func askOtherBox(c conversation, tool string) reply {
	r, done := c.resultFor(tool, "", "")
	if !done {
		tour, _ := LessonByName("tour")
		return callReply("Another glass box is attached as an MCP server; I will ask its agent through ask_agent, and its answer comes back as the tool's result.",
			toolCall{Name: tool, Args: args{{"request", tour.Request}}})
	}
	other, _, _ := strings.Cut(tool, "__")
	if r.IsError {
		return finalReply(fmt.Sprintf("The other glass box (%s) answered with an error: %s (offline tutor)", other, firstLine(r.Content)))
	}
	return finalReply(fmt.Sprintf("The other glass box (%s) answered:\n%s\n(offline tutor: two glass boxes talked over MCP.)", other, quote(r.Content, 12)))
}
