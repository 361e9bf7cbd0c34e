package lang

// The MCP bus: glassbox mcp-serve and --mcp-listen (docs/mcp.md, "glassbox on the bus").
func init() {
	register(map[string]string{
		"--mcp-listen-public goes with --mcp-listen ADDR":            "--mcp-listen-public は --mcp-listen ADDR と一緒に指定します",
		"--mcp-listen %q: want HOST:PORT, such as 127.0.0.1:7777":    "--mcp-listen %q: HOST:PORT の形で指定してください（例: 127.0.0.1:7777）",
		"--mcp-listen serves one run; it does not go with --compare": "--mcp-listen が受け持つのは一つの実行だけです。--compare とは一緒に使えません",
		"--mcp-listen %s is not a loopback address: whoever reaches it could ask the agent to act in your workspace. Listen on 127.0.0.1, or give --mcp-listen-public if you mean it.": "--mcp-listen %s はループバックアドレスではありません。そこに届く人は誰でも、あなたのワークスペースでエージェントに作業を頼めてしまいます。127.0.0.1 で待ち受けるか、それを承知のうえなら --mcp-listen-public を付けてください。",
		"unexpected argument %q: the requests come from the MCP client, through ask_agent":                                                                                             "余計な引数 %q があります。依頼は MCP クライアントから ask_agent を通して届きます",
		"mcp-serve serves one run; it does not go with --compare":                                                                                                                      "mcp-serve が受け持つのは一つの実行だけです。--compare とは一緒に使えません",
		"on the MCP bus over standard input and output (tool %s); %s":                                                                                                                  "標準入出力で MCP バスにつながりました（ツール %s）。%s",
		"the MCP connection ended: %v": "MCP の接続が切れました: %v",
		"no terminal: confirmations go to the MCP client's person (elicitation), or are refused when it cannot ask": "端末がありません。確認は MCP クライアント側の人に（elicitation で）尋ね、尋ねられないときは拒否します",
		"confirmations are asked on this terminal": "確認はこの端末で尋ねます",
	})
}
