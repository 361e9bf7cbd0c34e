package offline

import (
	"strings"

	"github.com/glassbox-dev/glassbox/providers/lessons"
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
func mcpBusScript(c Conversation) Reply {
	for _, tool := range c.mcpTools {
		if strings.HasSuffix(tool, busAskTool) {
			return askOtherBox(c, tool)
		}
	}
	l := c.lang
	list, listed := c.resultFor("list_files", "", "")
	if !listed {
		return callReply(l.say("This request came over the MCP bus, from a program rather than a person typing. I will look at the workspace, and my answer will go back to that program as its tool call's result.",
			"この依頼は MCP バスで届きました。人が入力したのではなく、プログラムからの依頼です。ワークスペースを見て、答えはそのプログラムのツール呼び出しの結果として返します。"),
			ToolCall{Name: "list_files", Args: Args{{"path", "."}}})
	}
	if list.IsError {
		return finalReply(l.sayf("For the caller on the MCP bus: I could not list the files: %s (offline tutor)",
			"MCP バスの呼び出し元へ: ファイルを一覧できませんでした: 「%s」(オフラインのチューター)", firstLine(list.Content)))
	}
	return finalReply(l.sayf("For the caller on the MCP bus: the workspace holds %s.\n"+
		"This answer leaves glassbox as the result of the caller's tools/call (ask_agent): watch the frame go back in the DELIVERING_OUTPUT step. (offline tutor)",
		"MCP バスの呼び出し元へ: ワークスペースにあるファイルは %s です。\n"+
			"この答えは、呼び出し元の tools/call (ask_agent) の結果として glassbox から出ていきます。DELIVERING_OUTPUT のステップで、フレームが返っていくところを見てください。(オフラインのチューター)",
		summarizeListing(l, list.Content)))
}

// askOtherBox asks another glass box, through its ask_agent tool, for the
// tour lesson, in the language of the request.
func askOtherBox(c Conversation, tool string) Reply {
	l := c.lang
	r, done := c.resultFor(tool, "", "")
	if !done {
		tour, _ := lessons.ByName("tour")
		return callReply(l.say("Another glass box is attached as an MCP server; I will ask its agent through ask_agent, and its answer comes back as the tool's result.",
			"別の glass box が MCP サーバーとしてつながっています。ask_agent でそのエージェントに尋ねます。答えはツールの結果として返ってきます。"),
			ToolCall{Name: tool, Args: Args{{"request", l.say(tour.Request, tour.RequestJA)}}})
	}
	other, _, _ := strings.Cut(tool, "__")
	if r.IsError {
		return finalReply(l.sayf("The other glass box (%s) answered with an error: %s (offline tutor)",
			"もう一つの glass box (%s) はエラーで答えました: 「%s」(オフラインのチューター)", other, firstLine(r.Content)))
	}
	return finalReply(l.sayf("The other glass box (%s) answered:\n%s\n(offline tutor: two glass boxes talked over MCP.)",
		"もう一つの glass box (%s) の答え:\n%s\n(オフラインのチューター: 2 つの glass box が MCP で話しました。)", other, quote(l, r.Content, 12)))
}
