package lang

// The Japanese of confinement (issue 28) and of MCP tool names (issue 29):
// tools offered under another name, the --mcp-listen token.
func init() {
	register(map[string]string{
		"the MCP server %s names a tool %q, which no model accepts as a name: it is offered as %s and called by its own name":                                                                                                "MCP サーバー %s にはモデルが名前として受け付けないツール %q があります。%s という名前で提供し、呼び出すときはサーバー側の名前を使います",
		"on the MCP bus at %s (tool %s). Callers present this start's token %s as Authorization: Bearer %s, or in the address: %s (another glassbox: --mcp NAME=%s). Requests from web pages of another origin are refused.": "MCP バス %s で待ち受けています(ツール %s)。呼び出す側は今回の起動のトークン %s を Authorization: Bearer %s として送るか、アドレスに含めます: %s(別の glassbox からは --mcp NAME=%s)。別のオリジンのウェブページからの要求は拒否します。",
		"Ctrl-C ends it.": "Ctrl-C で終わります。",
	})
}
