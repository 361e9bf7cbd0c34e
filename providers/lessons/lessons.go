// Package lessons is the catalogue of glassbox's lessons: their names,
// titles and requests in English and Japanese, and what a lesson needs of a
// dialect to show what it teaches. Front ends list and send them; the
// offline tutor (providers/offline) plays them, each lesson's script
// beside its name there.
//
// Languages: front ends show a lesson with Lesson.TitleIn(lang) and send
// Lesson.RequestIn(lang), where lang is "en" or "ja" as ui/lang.Lang and
// agentrun.Config.Lang spell it. Sending either request starts the lesson,
// and the tutor answers in the language of the request.
package lessons

import "strings"

// Lesson is one scripted exercise. A learner starts it by sending its
// request (glassbox's --lesson flag does that for them); from then on the
// offline tutor's replies follow the lesson's script, adapting to what
// really happened in the workspace.
type Lesson struct {
	// Name is the short id used by --lesson and `glassbox lessons`.
	Name string
	// Title is a one-line description, in English (TitleIn gives it in
	// another language).
	Title string
	// Request is what the learner sends to start the lesson, in English
	// (matched trimmed and in any case; the bare Name works too).
	Request string
	// TitleJA and RequestJA are the Japanese title and request.
	TitleJA, RequestJA string
	// Needs, when set, is a behaviour only some dialects have: elsewhere
	// the lesson runs but shows nothing of it (each dialect says what it
	// shows: providers/backend.Showing).
	Needs Behaviour
	// FromBus says the request arrives over the MCP bus: the front end
	// has an in-process MCP client call the glass box's own ask_agent
	// tool with it, rather than queue it as typed.
	FromBus bool
}

// Behaviour is something a lesson shows that not every dialect has.
type Behaviour string

// RepeatStop is a server ending a reply stuck repeating one token (Ollama
// stops after 30 repeats, and closes the stream without its done line).
const RepeatStop Behaviour = "repeat-stop"

// MCPTool is the lesson in which the model calls a tool of an MCP server;
// without --mcp, glassbox attaches its demo server for it.
const MCPTool = "mcp-tool"

// TitleIn returns the lesson's title in language lang: "ja" for Japanese,
// anything else ("en", "") for English.
func (l Lesson) TitleIn(lang string) string { return pick(lang, l.Title, l.TitleJA) }

// RequestIn returns the request that starts the lesson in language lang
// (as TitleIn reads lang). The tutor answers a Japanese request in
// Japanese.
func (l Lesson) RequestIn(lang string) string { return pick(lang, l.Request, l.RequestJA) }

// pick is ja when lang names Japanese and ja is written, else en.
func pick(lang, en, ja string) string {
	if strings.EqualFold(strings.TrimSpace(lang), "ja") && ja != "" {
		return ja
	}
	return en
}

// All returns the lessons in teaching order. The slice is new on every call.
func All() []Lesson {
	return []Lesson{
		{Name: "tour", Title: "A tour: list the files, read one, explain it",
			Request:   "Give me a tour of this project: list the files, then explain what hello.py does.",
			TitleJA:   "ツアー: ファイルを一覧し、1 つ読んで説明する",
			RequestJA: "このプロジェクトを案内してください。ファイルを一覧してから、hello.py が何をするのか説明してください。"},
		{Name: "write-file", Title: "Writing a file needs your confirmation",
			Request:   "Create a file farewell.py with a farewell(name) function that says goodbye.",
			TitleJA:   "ファイルの書き込みにはあなたの確認が要る",
			RequestJA: "farewell.py というファイルを作って、別れのあいさつをする farewell(name) 関数を書いてください。"},
		{Name: "run-command", Title: "Running a command needs your confirmation",
			Request:   "Run hello.py with python3 and tell me what it prints.",
			TitleJA:   "コマンドの実行にはあなたの確認が要る",
			RequestJA: "hello.py を python3 で実行して、何が表示されるか教えてください。"},
		{Name: "ask-delete", Title: "The model asks you before deleting a file",
			Request:   "Ask me first, then delete old_log.txt if I say yes.",
			TitleJA:   "ファイルを削除する前にモデルがあなたに尋ねる",
			RequestJA: "まず私に確認して、「はい」と答えたら old_log.txt を削除してください。"},
		{Name: "path-escape", Title: "The security layer denies a path outside the workspace",
			Request:   "Show me what is in ../../etc/passwd and /etc/hostname.",
			TitleJA:   "ワークスペースの外のパスをセキュリティ層が拒否する",
			RequestJA: "../../etc/passwd と /etc/hostname の中身を見せてください。"},
		{Name: "malformed", Title: "A malformed reply, the loop's feedback, and the repair",
			Request:   "Read notes/todo.txt and tell me what is left to do.",
			TitleJA:   "壊れた返答、ループからの指摘、そして修復",
			RequestJA: "notes/todo.txt を読んで、残っている作業を教えてください。"},
		{Name: "tool-failure", Title: "A tool fails and the model recovers",
			Request:   "What settings are in config.yaml?",
			TitleJA:   "ツールが失敗し、モデルが立て直す",
			RequestJA: "config.yaml にはどんな設定がありますか？"},
		{Name: "parallel", Title: "Two tool calls in one response",
			Request:   "Read hello.py and README.md and tell me how they fit together.",
			TitleJA:   "1 回の返答に 2 つのツール呼び出し",
			RequestJA: "hello.py と README.md を読んで、2 つがどう関係しているか教えてください。"},
		{Name: "iteration-limit", Title: "A model that never finishes meets the iteration limit",
			Request:   "Keep listing the files until a new one appears.",
			TitleJA:   "終わらないモデルが反復上限に当たる",
			RequestJA: "新しいファイルが現れるまで、ファイルを一覧し続けてください。"},
		{Name: "rate-limit", Title: "HTTP 429: the loop waits and retries",
			Request:   "Say hello while the service is rate-limiting us.",
			TitleJA:   "HTTP 429: ループが待ってリトライする",
			RequestJA: "サービスにレート制限がかかっている中で、あいさつしてください。"},
		{Name: "outage", Title: "HTTP 503 on every call: retries run out",
			Request:   "Summarise the README while the service is down.",
			TitleJA:   "毎回 HTTP 503: リトライが尽きる",
			RequestJA: "サービスが止まっている中で、README を要約してください。"},
		{Name: "token-limit", Title: "A tool call cut at the token limit is fed back, not run",
			Request:   "Read notes/todo.txt, but answer within a tiny token limit.",
			TitleJA:   "トークン上限で途切れたツール呼び出しは実行されず、モデルに返される",
			RequestJA: "notes/todo.txt を読んでください。ただし、ごく小さなトークン上限の中で答えてください。"},
		{Name: "repeat-stop", Title: "Ollama stops a reply stuck repeating one token",
			Request:   "List the files, while the model is stuck repeating itself.",
			TitleJA:   "同じトークンを繰り返す返答を Ollama が止める",
			RequestJA: "ファイルを一覧してください。ただし、モデルは同じことを繰り返して抜け出せなくなっています。",
			Needs:     RepeatStop},
		{Name: "unknown-model", Title: "HTTP 404: the model is not on the server",
			Request:   "Say hello with a model the server does not have.",
			TitleJA:   "HTTP 404: モデルがサーバーにない",
			RequestJA: "サーバーにないモデルで、あいさつしてください。"},
		{Name: MCPTool, Title: "The model calls a tool of an MCP server (--mcp)",
			Request:   "Call the MCP server's tool and tell me what it answered.",
			TitleJA:   "モデルが MCP サーバーのツールを呼ぶ (--mcp)",
			RequestJA: "MCP サーバーのツールを呼んで、何と答えたか教えてください。"},
		{Name: "mcp-bus", Title: "A request arrives over the MCP bus and the answer goes back as its result",
			Request:   "Over the MCP bus: what is in your workspace?",
			TitleJA:   "MCP バスから依頼が届き、答えがその結果として返る",
			RequestJA: "MCP バス経由で: あなたのワークスペースには何がありますか？",
			FromBus:   true},
		{Name: "streams", Title: "Watch a reply stream in: Gemini's events beside Llama's lines",
			Request:   "Read README.md and tell me about it while I watch your reply stream in.",
			TitleJA:   "ストリーミングで届く返答を見る: Gemini のイベントと Llama の行",
			RequestJA: "README.md を読んで、その内容を教えてください。返答がストリーミングで届くところを見ています。"},
	}
}

// ByName returns the lesson called name.
func ByName(name string) (Lesson, bool) {
	for _, l := range All() {
		if l.Name == name {
			return l, true
		}
	}
	return Lesson{}, false
}

// ForRequest returns the lesson a request starts: its English or Japanese
// request (trimmed, any case, with or without the closing full stop) or,
// as a shortcut, its name.
func ForRequest(request string) (Lesson, bool) {
	req := requestKey(request)
	if req == "" {
		return Lesson{}, false
	}
	for _, l := range All() {
		if req == requestKey(l.Request) || req == requestKey(l.RequestJA) || strings.EqualFold(req, l.Name) {
			return l, true
		}
	}
	return Lesson{}, false
}

// requestKey is a request as ForRequest compares it: trimmed, lower-cased,
// without a closing "." or "。".
func requestKey(s string) string {
	return strings.ToLower(strings.TrimRight(strings.TrimSpace(s), ".。"))
}
