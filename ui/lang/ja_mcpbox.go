package lang

// The Japanese of the demo MCP server's subcommand (main.go, serveDemo).
func init() {
	register(map[string]string{
		"glassbox %s takes no arguments: it serves the demo MCP server on standard input and output (attach it with --mcp demo)": "glassbox %s は引数を取りません。標準入出力でデモ用の MCP サーバーを動かします(つなぐには --mcp demo を使います)",
		"glassbox %s: the demo MCP server stopped: %v": "glassbox %s: デモ用の MCP サーバーが止まりました: %v",
	})
}
