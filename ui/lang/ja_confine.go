package lang

// The Japanese of confinement (issue 28) and of MCP tool names (issue 29):
// tools offered under another name, the --mcp-listen token.
func init() {
	register(map[string]string{
		"the MCP server %s names a tool %q, which no model accepts as a name: it is offered as %s and called by its own name": "MCP サーバー %s にはモデルが名前として受け付けないツール %q があります。%s という名前で提供し、呼び出すときはサーバー側の名前を使います",
	})
}
