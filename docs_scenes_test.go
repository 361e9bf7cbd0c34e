package main

// docScenes are the moments of the glass box the docs quote, each the
// flags glassbox is started with and the keys a person presses (see
// docScene). A doc names one in a marker, <!-- screen: SCENE[@MARK] WxH -->;
// the instructor guide's are its blocks, in order, played as the guide
// tells the room to play them.
var docScenes = map[string]docScene{
	// 0–10: the first screen.
	"welcome": {},
	// 10–22: the tour, one transition at a time, a call unfolded, then
	// back and forth in time.
	"tour": {keys: []string{"enter", "@queued", "space*3", "@tool_call", "space", "@allow", "space", "@result",
		"up", "e", "@unfolded", "space*9", "@idle", "[*3", "]*3"}},
	// 22–32: the Raw payload pane on the first response, zoomed; the
	// request, the headers; the last response.
	"payload": {keys: []string{"enter", "space*3", "@tool_call", "tab*3", "z", "@zoomed", "r", "@request", "h", "@headers",
		"pgdown", "@tools", "G", "r", "@response", "esc", "c", "@end", "[", "@last_call"}},
	// 32–47: the security layer, four lessons in one glass box.
	"security": {keys: []string{"esc", "l", "2", "enter", "c", "@write_dialog", "y", "c",
		"l", "2", "enter", "c", "@unchanged", "n", "c", "@denied",
		"l", "3", "enter", "c", "@command_dialog", "a", "c", "l", "3", "enter", "c", "@granted", "[*5", "@session_grant", "]*5",
		"l", "5", "enter", "space*12", "@path_escape", "c",
		"l", "4", "enter", "c", "@question", "1", "@rm_dialog", "y", "c", "@deleted"}},
	// 47–57: failure and repair.
	"malformed-llama":  {args: []string{"--provider", "llama", "--lesson", "malformed"}, keys: []string{"enter", "space*3", "@malformed", "tab*3", "z", "@zoomed", "g", "@top", "esc", "tab", "space", "c", "@repaired"}},
	"malformed-gemini": {args: []string{"--lesson", "malformed"}, keys: []string{"enter", "space*3", "@malformed", "c", "@end", "esc", "l", "7", "enter", "c", "@tool_failure"}},
	// 57–63: two tool calls in one reply.
	"parallel-gemini": {args: []string{"--lesson", "parallel"}, keys: []string{"enter", "space*3", "@first_policy", "space*5", "@second_call", "c", "@end"}},
	"parallel-llama":  {args: []string{"--provider", "llama", "--lesson", "parallel"}, keys: []string{"enter", "space*3", "@first_policy", "c", "@end"}},
	// 63–70: limits.
	"limits": {args: []string{"--lesson", "iteration-limit", "--max-iterations", "3"}, keys: []string{"enter", "c", "@halted",
		"esc", "l", "down", "enter", "enter", "space*3", "@awaiting", "space", "@retry", "space*2", "@retried", "tab*3", "@exchanges", "x", "@first_exchange", "h", "@headers",
		"esc", "l", "down", "enter", "enter", "c", "@outage"}},
	// README.md, "The screen": four steps into write-file, the dialog hidden.
	// (Whole screens are played at the glass box's own latency, so their
	// times read as a person's would.)
	"readme": {args: []string{"--lesson", "write-file", "--sim-latency", "300ms"}, keys: []string{"enter", "n*4", "esc", "@hidden"}},
	// ui-tour.md, "The layout": four transitions into the tour.
	"tour-four": {args: []string{"--sim-latency", "300ms"}, keys: []string{"enter", "space*4"}},
	// ui-tour.md, "Narrow terminals": the tabs, on the Tool calls tab.
	"narrow": {keys: []string{"enter", "space*3", "tab*2", "@tools", "z", "@zoom"}},
	// Room logistics: the welcome with --offline.
	"offline": {args: []string{"--offline"}},
	// Follow-up: rewind to step 3 of write-file and fork from it.
	"rewind": {args: []string{"--lesson", "write-file"}, keys: []string{"enter", "c", "y", "c", "@done", "[*7", "@step3", "f", "@forked", "space", "@confirm", "n", "c", "@denied"}},
	// Follow-up: the demo MCP server's tool, stepped.
	"mcp-tool": {args: []string{"--lesson", "mcp-tool"}, keys: []string{"enter", "space", "@first", "tab*3", "G", "@handshake", "space*2", "@response",
		"r", "z", "@request", "pgdown*3", "@p3", "pgdown*3", "@p6", "pgdown*3", "@p9", "esc", "r", "c", "@dialog", "y", "@running", "c", "@done"}},
	// Follow-up: where did the tokens go — the Anatomy pane zoomed on the
	// tour's first and last calls, then Rosetta.
	"tokens": {keys: []string{"enter", "space*3", "tab*4", "z", "@first_call", "esc", "c", "z", "@last_call", "d", "@rosetta", "esc"}},
	// 70–85: compare mode.
	"compare": {args: []string{"--compare"}, keys: []string{"enter", "space*3", "@first_call", "r", "@request", "G", "@request_end", "r",
		"c", "@end", "[*2", "@back", "v", "@other", "v", "tab*3", "z", "@zoomed", "esc"}},
}
