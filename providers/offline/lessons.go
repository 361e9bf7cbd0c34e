package offline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// scripts are the lessons' scripts (the catalogue is package lessons), by
// name. A learner starts a lesson by sending its request; from then on the
// tutor's replies follow its script, adapting to what really happened in
// the workspace.
//
// Each script reads only the conversation it is sent, so re-sending a
// request, resuming a session or forking from an earlier transition gives
// the same reply. In the table, "→" is one model reply and "⇒" a tool call
// that needs the person's confirmation under the default policy.
//
//	name             Gemini (native calls)              Llama JSON mode                 Llama native tools
//	---------------  ---------------------------------  ------------------------------  --------------------------------
//	tour             → list_files "."                   same, one call per reply        same as Gemini
//	                 → read_file hello.py
//	                 → answer naming the def lines the read actually returned
//	write-file       → ⇒ write_file farewell.py         same                            same
//	                 → answer: created it (approved) / did not (denied: error result) / the tool's error
//	run-command      → ⇒ execute_command "python3 hello.py"
//	                 → answer quoting the real output; if python3 is missing, says so; if denied, says nothing ran
//	ask-delete       → ask_user "Delete old_log.txt?" [yes, no]
//	                 yes → ⇒ execute_command "rm old_log.txt" → answer (deleted / you declined the command)
//	                 no, other or no answer → answer: kept old_log.txt
//	path-escape      → read_file "../../etc/passwd" + read_file "/etc/hostname" in one response
//	                   (JSON mode: one after the other), both DENIED by path-outside-workspace
//	                 → answer explaining the sandbox (or, if a custom policy let it through, says so)
//	malformed        → finishReason                     → prose + JSON missing its      → tool_calls open_file (no such
//	                   MALFORMED_FUNCTION_CALL,           closing brace (the loop         tool: the engine denies it as
//	                   no parts (the loop tells it)       tells it the parse error)       "unknown-tool")
//	                 → read_file notes/todo.txt → answer listing the todo items and naming the repaired mistake
//	tool-failure     → read_file config.yaml (fails: missing) → list_files "." → answer: no config.yaml, here is what exists
//	parallel         → read_file hello.py +             → read_file hello.py            same as Gemini
//	                   read_file README.md (one reply)  → read_file README.md
//	                 → answer comparing both files; JSON mode explains why the reads came one after the other
//	iteration-limit  → list_files "." … forever; the loop's --max-iterations halts it (HALTED, max_iterations)
//	rate-limit       first attempt of the first call: HTTP 429 + Retry-After: 1 (Gemini RESOURCE_EXHAUSTED with
//	                 RetryInfo "1s"; Ollama {"error":"rate limit exceeded"}); the retry → short answer.
//	                 (The transport counts attempts per request body and limits every other one, so
//	                 running the lesson again in the same process shows the 429 again.)
//	outage           every call: HTTP 503 + Retry-After: 1 (Gemini UNAVAILABLE; Ollama "model is overloaded");
//	                 the loop's retries run out → llm_failure → HALTED
//	token-limit      → finishReason MAX_TOKENS,         → the JSON reply cut mid-way,   → `{"name": "read_file",
//	                   no parts                           done_reason length              "parameters":` as text in the
//	                                                                                      done line, done_reason length
//	                 (each comes back as malformed_response) → read_file notes/todo.txt → answer naming the cut
//	repeat-stop      → answer: Gemini has no            → `{"thought": "…",` then 31    → nothing (the tool parser held
//	                   token-repeat stop                  newlines, then a clean end      the call back), a clean end
//	                                                      with no done line               with no done line
//	                 (Llama: malformed_response, no retry) → list_files "." → answer naming the stop
//	mcp-tool         → ⇒ the first tool of an --mcp server the request declares (NAME__echo first), {"text": …}
//	                 → answer quoting its result (or its failure); glassbox attaches its demo server
//	                   when the lesson is started without --mcp; no server at all: how to attach one
//	unknown-model    every call: HTTP 404 (Ollama `model 'llama3.1:8b' not found`; Gemini NOT_FOUND) → llm_failure,
//	                 not retried → HALTED. Any Ollama model name but llama3.1:8b gets the same 404.
//	mcp-bus          (the request arrives as an mcp_bus event) → list_files . → answer, sent back as the call's result;
//	                 with another glass box attached (NAME__ask_agent): ask it for the tour and quote its answer
//	streams          → read_file README.md → a long answer, streamed token by token: Gemini one SSE event per
//	                 token, Llama one NDJSON line per token (run it with --compare to see both streams)
//
// Requests that match no lesson go to a small intent matcher (tutor.go).
//
// The tutor answers in the language of the request: its thoughts, its
// question to the person and its answers, on every dialect. Tool names,
// paths, commands and the files it writes stay the same in both.
var scripts = map[string]func(Conversation) Reply{
	"tour":            tourScript,
	"write-file":      writeFileScript,
	"run-command":     runCommandScript,
	"ask-delete":      askDeleteScript,
	"path-escape":     pathEscapeScript,
	"malformed":       malformedScript,
	"tool-failure":    toolFailureScript,
	"parallel":        parallelScript,
	"iteration-limit": iterationLimitScript,
	"rate-limit":      rateLimitScript,
	"token-limit":     tokenLimitScript,
	"repeat-stop":     repeatStopScript,
	lessons.MCPTool:   mcpToolScript,
	"mcp-bus":         mcpBusScript,
	"streams":         streamsScript,
}

// faults are the lessons that answer with an HTTP error instead of (or
// before) a model reply.
var faults = map[string]fault{
	"rate-limit":    faultRateLimitFirst,
	"outage":        faultOutage,
	"unknown-model": faultUnknownModel,
}

// fault is a transport-level failure a lesson demonstrates instead of (or
// before) a model reply.
type fault int

const (
	faultNone fault = iota
	// faultRateLimitFirst answers the first attempt of the lesson's first
	// model call with 429; the retry succeeds.
	faultRateLimitFirst
	// faultOutage answers every model call with 503.
	faultOutage
	// faultUnknownModel answers every model call with the 404 a server gives
	// for a model it does not have.
	faultUnknownModel
)

// misfireToolName is the tool that does not exist, called by the malformed
// lesson in Llama native mode.
const misfireToolName = "open_file"

// ----- the scripts -----

func tourScript(c Conversation) Reply {
	l := c.lang
	list, listed := c.resultFor("list_files", "", "")
	if !listed {
		return callReply(l.say("To give a tour I first need to see which files are here.",
			"案内するには、まずどんなファイルがあるかを見る必要があります。"),
			ToolCall{Name: "list_files", Args: Args{{"path", "."}}})
	}
	read, done := c.resultFor("read_file", "path", "hello.py")
	if !done {
		return callReply(l.say("The listing shows hello.py; reading it will tell me what it does.",
			"一覧に hello.py があります。読めば何をするファイルかわかります。"),
			ToolCall{Name: "read_file", Args: Args{{"path", "hello.py"}}})
	}
	var b strings.Builder
	if list.IsError {
		b.WriteString(l.sayf("I could not list the files: %s\n\n", "ファイルを一覧できませんでした: 「%s」\n\n", firstLine(list.Content)))
	} else {
		b.WriteString(l.sayf("The workspace holds: %s.\n\n", "ワークスペースにあるファイル: %s。\n\n", summarizeListing(l, list.Content)))
	}
	if read.IsError {
		b.WriteString(l.sayf("I could not read hello.py: %s\nSo I cannot explain it.", "hello.py を読めませんでした: 「%s」\nそのため説明できません。", firstLine(read.Content)))
	} else {
		b.WriteString(explainPython(l, "hello.py", read.Content))
	}
	b.WriteString(l.say("\n\n(offline tutor: every sentence above comes from the tool results you just watched.)",
		"\n\n(オフラインのチューター: ここまでの説明はすべて、いま見てもらったツールの結果から書いています。)"))
	return finalReply(b.String())
}

// streamsScript reads the README and answers at some length, so the reply
// streams in many pieces; the answer says where to watch them.
func streamsScript(c Conversation) Reply {
	l := c.lang
	read, done := c.resultFor("read_file", "path", "README.md")
	if !done {
		return callReply(l.say("The README says what this project is; I read it first, then answer at some length so you can watch the reply arrive.",
			"このプロジェクトが何なのかは README に書いてあります。まず読んでから、返答が届くようすを見られるように少し長めに答えます。"),
			ToolCall{Name: "read_file", Args: Args{{"path", "README.md"}}})
	}
	var b strings.Builder
	gist := readmeGist(read.Content)
	switch {
	case read.IsError:
		b.WriteString(l.sayf("I could not read README.md: %s\n\n", "README.md を読めませんでした: 「%s」\n\n", firstLine(read.Content)))
	case gist == "":
		b.WriteString(l.say("README.md, in its own words: it has no prose, only headings and lists.\n\n",
			"README.md には本文がなく、見出しと箇条書きだけです。\n\n"))
	default:
		b.WriteString(l.sayf("README.md, in its own words: %s\n\n", "README.md 自身の言葉では: 「%s」\n\n", gist))
	}
	b.WriteString(l.say("This answer came to you token by token. In the raw payload pane (r shows the response) every piece is one chunk "+
		"with the time it arrived: on Gemini one server-sent event (data: {…}) from :streamGenerateContent, on Llama one NDJSON line "+
		"from /api/chat. Only the last piece carries how the reply ended (finishReason, or done:true with done_reason) and the token "+
		"counts. Run this lesson with --compare and the strip's chunks column counts both streams the same way; with --stream=false "+
		"every reply is one body instead, and the column says 1.",
		"この答えはトークンごとに届きました。生ペイロードペイン (r でレスポンスを表示) では、かけら 1 つが、届いた時刻つきの 1 チャンクです。"+
			"Gemini では :streamGenerateContent からのサーバー送信イベント (data: {…}) 1 つ、Llama では /api/chat からの NDJSON 1 行です。"+
			"返答がどう終わったか (finishReason、または done:true と done_reason) とトークン数を運ぶのは、最後のかけらだけです。"+
			"このレッスンを --compare で実行すると、比較ストリップの chunks の列が両方のストリームを同じ数え方で数えます。"+
			"--stream=false では返答は毎回 1 つのボディで届き、この列は 1 になります。"))
	return finalReply(b.String())
}

// readmeGist is the first few sentences of a README's prose (headings,
// code and lists left out); "" when it has none.
func readmeGist(content string) string {
	var prose []string
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "```") || strings.HasPrefix(line, "-") || strings.HasPrefix(line, "*") {
			continue
		}
		prose = append(prose, line)
		if len(prose) == 3 {
			break
		}
	}
	return strings.Join(prose, " ")
}

// farewellSource is what the write-file lesson writes.
const farewellSource = "def farewell(name):\n    return f\"Goodbye, {name}!\"\n\n\nif __name__ == \"__main__\":\n    print(farewell(\"world\"))\n"

func writeFileScript(c Conversation) Reply {
	l := c.lang
	r, done := c.resultFor("write_file", "path", "farewell.py")
	if !done {
		return callReply(l.say("I will write farewell.py with a farewell(name) function. Writing changes the workspace, so the person has to approve it.",
			"farewell(name) 関数を持つ farewell.py を書きます。書き込みはワークスペースを変えるので、人の承認が必要です。"),
			ToolCall{Name: "write_file", Args: Args{{"path", "farewell.py"}, {"content", farewellSource}}})
	}
	switch {
	case r.IsError && isDenial(r.Content):
		why := l.say("That is the security layer working: write_file always needs a person's approval.",
			"セキュリティ層が働いた結果です。write_file には必ず人の承認が要ります。")
		if byPolicy(r.Content) {
			why = l.say("A rule of the security policy refused it before anyone was asked.",
				"誰かに尋ねる前に、セキュリティポリシーのルールが拒否しました。")
		}
		return finalReply(declined(l, r.Content, "the write", "書き込み") +
			l.say(", so I did not create farewell.py; the workspace is unchanged. ", "ので、farewell.py は作っていません。ワークスペースは変わっていません。") +
			why + loopSaid(l, r.Content))
	case r.IsError:
		return finalReply(l.say("The write failed, so farewell.py was not created. The tool said:\n",
			"書き込みに失敗したので、farewell.py は作られていません。ツールの出力:\n") + quote(l, r.Content, 6))
	}
	return finalReply(l.say("You approved the write, and I created farewell.py:\n", "書き込みが承認されたので、farewell.py を作りました:\n") +
		quote(l, farewellSource, 10) +
		l.say("\nfarewell(name) returns \"Goodbye, {name}!\"; run `python3 farewell.py` to try it. (offline tutor)",
			"\nfarewell(name) は \"Goodbye, {name}!\" を返します。`python3 farewell.py` で試せます。(オフラインのチューター)"))
}

// loopSaid is the closing line that repeats what the loop told the model
// about a refused call.
func loopSaid(l language, content string) string {
	return l.sayf("\n(the loop told me: %s)", "\n(ループからの通知: 「%s」)", firstLine(content))
}

func runCommandScript(c Conversation) Reply {
	l := c.lang
	const command = "python3 hello.py"
	r, done := c.resultFor("execute_command", "command", command)
	if !done {
		return callReply(l.say("Running hello.py is the only way to know what it prints. Commands need the person's approval.",
			"何が表示されるかは hello.py を実行してみないとわかりません。コマンドの実行には人の承認が要ります。"),
			ToolCall{Name: "execute_command", Args: Args{{"command", command}}})
	}
	switch {
	case r.IsError && isDenial(r.Content):
		return finalReply(declined(l, r.Content, "the command", "コマンド") +
			l.say(", so nothing ran and I cannot tell you what hello.py prints. Reading the file with read_file would show it without running anything.",
				"ので、何も実行されておらず、hello.py が何を表示するかはお伝えできません。read_file でファイルを読めば、何も実行せずに中身を確かめられます。") +
			loopSaid(l, r.Content))
	case missingProgram(r.Content):
		return finalReply(l.say("The command could not start: python3 does not seem to be installed on this machine. The tool said:\n",
			"コマンドを起動できませんでした。このマシンには python3 がインストールされていないようです。ツールの出力:\n") +
			quote(l, r.Content, 6) +
			l.say("\nInstall Python 3 (or read hello.py instead) and try again.",
				"\nPython 3 をインストールしてから (または代わりに hello.py を読んで)、もう一度試してください。"))
	case r.IsError:
		return finalReply(l.say("`python3 hello.py` failed. The tool reported:\n", "`python3 hello.py` は失敗しました。ツールの報告:\n") + quote(l, r.Content, 10))
	}
	return finalReply(l.say("`python3 hello.py` ran, and this is what the tool reported:\n", "`python3 hello.py` を実行しました。ツールの報告はこうです:\n") +
		quote(l, r.Content, 10) +
		l.say("\nThat output comes from the __main__ block, which prints greet(\"world\"). (offline tutor)",
			"\nこの出力は、__main__ ブロックが greet(\"world\") を表示したものです。(オフラインのチューター)"))
}

func askDeleteScript(c Conversation) Reply {
	l := c.lang
	const target = "old_log.txt"
	ans, asked := c.resultFor("ask_user", "", "")
	if !asked {
		return callReply(l.say("Deleting cannot be undone, so I ask the person first.", "削除は取り消せないので、まず人に尋ねます。"),
			ToolCall{Name: "ask_user", Args: Args{
				{"question", l.say("Delete old_log.txt?", "old_log.txt を削除しますか？")},
				{"options", []any{l.say("yes", "はい"), l.say("no", "いいえ")}}}})
	}
	if ans.IsError {
		return finalReply(l.sayf("I could not get your answer (%s), so I left old_log.txt alone.",
			"あなたの答えを受け取れなかったので (「%s」)、old_log.txt はそのままにしました。", firstLine(ans.Content)))
	}
	answer := personAnswer(ans.Content)
	switch {
	case isNo(answer):
		return finalReply(l.say("You said no, so I kept old_log.txt. Nothing was deleted.",
			"「いいえ」との答えだったので、old_log.txt は残しました。何も削除していません。"))
	case !isYes(answer):
		return finalReply(l.sayf("You answered %q, which is not a clear yes, so I kept old_log.txt to be safe.",
			"答えは「%s」で、はっきりした「はい」ではないので、念のため old_log.txt は残しました。", answer))
	}
	rm, done := c.resultFor("execute_command", "command", "rm "+target)
	if !done {
		return callReply(l.say("The person said yes. Deleting is a shell command, so the security layer will ask them to approve it as well.",
			"答えは「はい」です。削除はシェルのコマンドなので、セキュリティ層があらためて承認を求めます。"),
			ToolCall{Name: "execute_command", Args: Args{{"command", "rm " + target}}})
	}
	switch {
	case rm.IsError && isDenial(rm.Content):
		who := l.say("declined", "あなたが")
		if byPolicy(rm.Content) {
			who = l.say("the security policy denied", "セキュリティポリシーが")
		}
		return finalReply(l.sayf("You said yes to my question, but %s the rm command itself, so old_log.txt is still there. "+
			"My question was just text; only the security layer's confirmation can let a command run.",
			"質問には「はい」と答えてもらいましたが、rm コマンドそのものを%s拒否したので、old_log.txt はまだあります。"+
				"私の質問はただのテキストです。コマンドを実行させられるのは、セキュリティ層の確認だけです。", who))
	case rm.IsError:
		return finalReply(l.say("I tried to delete old_log.txt, but the command failed:\n",
			"old_log.txt を削除しようとしましたが、コマンドが失敗しました:\n") + quote(l, rm.Content, 6))
	}
	return finalReply(l.say("Deleted old_log.txt, as you confirmed (twice: once to my question, once to the security layer). (offline tutor)",
		"確認どおり old_log.txt を削除しました (確認は 2 回: 私の質問に 1 回、セキュリティ層に 1 回)。(オフラインのチューター)"))
}

func pathEscapeScript(c Conversation) Reply {
	l := c.lang
	// Two ways out of the sandbox: climbing with .. and an absolute path.
	// Where the dialect allows it both go out in one response, so the loop
	// records one denial and moves straight on to the next call
	// (RECORDING_ERROR --next_tool_call--> CHECKING_POLICY).
	targets := []string{"../../etc/passwd", "/etc/hostname"}
	missing := c.missingReads(targets)
	if len(missing) > 0 {
		if c.quirks.OneCallPerReply {
			return callReply(l.sayf("The person asked for files outside the project; I will try %s.",
				"依頼されたのはプロジェクトの外のファイルです。%s を試します。", missing[0].Args.str("path")), missing[0])
		}
		return callReply(l.say("The person asked for two files outside the project; I will try both at once.",
			"依頼されたのはプロジェクトの外の 2 つのファイルです。両方を一度に試します。"), missing...)
	}
	var b strings.Builder
	allowed := false
	for _, f := range targets {
		r, _ := c.resultFor("read_file", "path", f)
		switch {
		case r.IsError && isDenial(r.Content):
			b.WriteString(l.sayf("I could not read %s: the security layer denied it (%s).\n",
				"%s は読めませんでした。セキュリティ層が拒否しました (「%s」)。\n", f, firstLine(r.Content)))
		case r.IsError:
			b.WriteString(l.sayf("Reading %s failed: %s. Normally the path-outside-workspace rule denies this path before the tool runs; check whether a custom --policy changed that.\n",
				"%s の読み込みに失敗しました: 「%s」。ふだんはツールが動く前に path-outside-workspace のルールがこのパスを拒否します。独自の --policy がそれを変えていないか確かめてください。\n",
				f, firstLine(r.Content)))
		default:
			allowed = true
			b.WriteString(l.sayf("The read of %s was NOT blocked, so the active policy allows paths outside the workspace (the built-in rule path-outside-workspace would have denied it). It starts with:\n%s\n",
				"%s の読み込みは止められませんでした。いまのポリシーはワークスペースの外のパスを許しています (組み込みのルール path-outside-workspace なら拒否したはずです)。先頭はこうです:\n%s\n",
				f, quote(l, r.Content, 3)))
		}
	}
	if !allowed {
		b.WriteString(l.say("Both paths resolve outside the workspace — one climbs out with .., the other is absolute — and the rule "+
			"path-outside-workspace denies any such path before the tool even runs. The agent can only touch the copy of the sample project it was given.",
			"どちらのパスもワークスペースの外を指しています。一方は .. で外へ上り、もう一方は絶対パスです。"+
				"path-outside-workspace のルールは、そうしたパスをツールが動く前に拒否します。エージェントが触れられるのは、渡されたサンプルプロジェクトのコピーだけです。"))
	}
	return finalReply(strings.TrimRight(b.String(), "\n"))
}

// todoThought is why the malformed and token-limit lessons want the todo list.
func todoThought(l language) string {
	return l.say("The todo list lives in notes/todo.txt, so I should read it.", "TODO リストは notes/todo.txt にあるので、それを読みます。")
}

// leftToDo is the answer of the lessons that read the todo list: its items,
// then how the first attempt went wrong.
func leftToDo(l language, r *ToolResult, mistake string) Reply {
	return finalReply(l.say("Left to do, according to notes/todo.txt:\n", "notes/todo.txt によると、残っている作業はこれです:\n") +
		quote(l, r.Content, 12) + "\n" + mistake)
}

func malformedScript(c Conversation) Reply {
	l := c.lang
	const notes = "notes/todo.txt"
	if !c.misfired() {
		if c.quirks.MisfireByUnknownTool {
			return callReply(l.say("I will open the todo list.", "TODO リストを開きます。"),
				ToolCall{Name: misfireToolName, Args: Args{{"path", notes}}})
		}
		return Reply{Misfire: true, Thought: todoThought(l)}
	}
	r, next := readTodoAgain(c, l.say("My last reply could not be used. This time: one valid read_file call.",
		"前の返答は使えませんでした。今度は正しい read_file の呼び出しを 1 つ送ります。"))
	if r == nil {
		return next
	}
	mistake := c.quirks.Malformed.in(l)
	if c.calledTool(misfireToolName) {
		mistake = l.say("I first called open_file, a tool that does not exist; the engine denied it as an unknown tool and I switched to read_file.",
			"最初に存在しないツール open_file を呼んだので、エンジンが未知のツールとして拒否しました。そこで read_file に切り替えました。")
	}
	return leftToDo(l, r, mistake)
}

// readTodoAgain is the repair after an unusable first reply: read
// notes/todo.txt (thought says why), then hand the read back for the
// answer. It returns the next reply instead while the read is not done or
// failed.
func readTodoAgain(c Conversation, thought string) (*ToolResult, Reply) {
	const notes = "notes/todo.txt"
	r, done := c.resultFor("read_file", "path", notes)
	if !done {
		return nil, callReply(thought, ToolCall{Name: "read_file", Args: Args{{"path", notes}}})
	}
	if r.IsError {
		return nil, finalReply(c.lang.sayf("I could not read notes/todo.txt: %s", "notes/todo.txt を読めませんでした: 「%s」", firstLine(r.Content)))
	}
	return &r, Reply{}
}

func tokenLimitScript(c Conversation) Reply {
	l := c.lang
	if !c.misfired() {
		return Reply{Cut: true, Thought: todoThought(l)}
	}
	r, next := readTodoAgain(c, l.say("My last call was cut off at the token limit. This time: a short read_file call.",
		"前の呼び出しはトークン上限で途切れました。今度は短い read_file の呼び出しを送ります。"))
	if r == nil {
		return next
	}
	cut := c.quirks.Cut.in(l)
	return leftToDo(l, r, l.sayf("My first tool call was cut off (%s), so the loop fed it back instead of running half a call, and I sent it again.",
		"最初のツール呼び出しは途中で切れていました (%s)。ループは半分だけの呼び出しを実行せずに私へ返したので、送り直しました。", cut))
}

func repeatStopScript(c Conversation) Reply {
	l := c.lang
	if c.quirks.RepeatStop.EN == "" {
		name := c.quirks.Name.in(l)
		return finalReply(l.sayf("(offline tutor: this lesson shows an Ollama behaviour. Ollama ends a generation when the model "+
			"writes the same token more than 30 times in a row, and closes the stream without its done:true line; "+
			"%s has no such stop. Run it with --provider llama.)",
			"(オフラインのチューター: このレッスンは Ollama のふるまいを見せるものです。Ollama は、モデルが同じトークンを 30 回を超えて続けて書くと生成を打ち切り、"+
				"done:true の行なしでストリームを閉じます。%s にはこの打ち切りはありません。--provider llama で実行してください。)", name))
	}
	if !c.misfired() {
		return Reply{RepeatStop: true, Thought: l.say("I should list the files first.", "まずファイルを一覧します。")}
	}
	r, done := c.resultFor("list_files", "", "")
	if !done {
		return callReply(l.say("My last reply was stopped by Ollama's token-repeat limit. This time: one list_files call.",
			"前の返答は Ollama のトークン繰り返しの上限で止められました。今度は list_files の呼び出しを 1 つ送ります。"),
			ToolCall{Name: "list_files", Args: Args{{"path", "."}}})
	}
	how := c.quirks.RepeatStop.in(l)
	return finalReply(l.sayf("The files: %s\nMy first reply got stuck repeating one token, so %s; the loop fed that back once, without retrying, and I listed the files.",
		"ファイル: %s\n最初の返答は 1 つのトークンを繰り返して抜け出せなくなり、%s。ループはリトライせずにそれを一度だけ私へ返したので、ファイルを一覧しました。",
		summarizeListing(l, r.Content), how))
}

func toolFailureScript(c Conversation) Reply {
	l := c.lang
	const target = "config.yaml"
	r, done := c.resultFor("read_file", "path", target)
	if !done {
		return callReply(l.say("The settings should be in config.yaml; reading it.", "設定は config.yaml にあるはずなので、読みます。"),
			ToolCall{Name: "read_file", Args: Args{{"path", target}}})
	}
	if !r.IsError {
		return finalReply(l.say("config.yaml contains:\n", "config.yaml の中身:\n") + quote(l, r.Content, 20))
	}
	list, listed := c.resultFor("list_files", "", "")
	if !listed {
		return callReply(l.say("read_file failed. Before guessing, I will look at what files do exist.",
			"read_file が失敗しました。推測する前に、実際にどんなファイルがあるかを見ます。"),
			ToolCall{Name: "list_files", Args: Args{{"path", "."}}})
	}
	msg := l.sayf("There is no config.yaml in this workspace (read_file said: %s).\n",
		"このワークスペースに config.yaml はありません (read_file の出力: 「%s」)。\n", firstLine(r.Content))
	if list.IsError {
		return finalReply(msg + l.sayf("I also could not list the files: %s", "ファイルの一覧も取得できませんでした: 「%s」", firstLine(list.Content)))
	}
	return finalReply(msg + l.sayf("What does exist: %s.\nNone of them is a settings file; if you expected one, it may live elsewhere. (offline tutor)",
		"実際にあるファイル: %s。\nどれも設定ファイルではありません。あるはずだったのなら、別の場所にあるのかもしれません。(オフラインのチューター)",
		summarizeListing(l, list.Content)))
}

func parallelScript(c Conversation) Reply {
	l := c.lang
	files := []string{"hello.py", "README.md"}
	missing := c.missingReads(files)
	if len(missing) > 0 {
		if c.quirks.OneCallPerReply {
			return callReply(l.sayf("JSON mode allows one tool call per reply, so I read %s now.",
				"JSON モードでは 1 回の返答でツール呼び出しは 1 つだけなので、いまは %s を読みます。", missing[0].Args.str("path")), missing[0])
		}
		return callReply(l.say("The two reads do not depend on each other, so I ask for both at once.",
			"2 つの読み込みは互いに依存しないので、両方を一度に頼みます。"), missing...)
	}
	hello, _ := c.resultFor("read_file", "path", "hello.py")
	readme, _ := c.resultFor("read_file", "path", "README.md")
	var b strings.Builder
	if hello.IsError {
		b.WriteString(l.sayf("hello.py could not be read: %s\n", "hello.py を読めませんでした: 「%s」\n", firstLine(hello.Content)))
	} else {
		b.WriteString(explainPython(l, "hello.py", hello.Content) + "\n")
	}
	if readme.IsError {
		b.WriteString(l.sayf("README.md could not be read: %s\n", "README.md を読めませんでした: 「%s」\n", firstLine(readme.Content)))
	} else {
		n, first := lineCount(readme.Content), firstLine(readme.Content)
		b.WriteString(l.say(fmt.Sprintf("README.md has %s and begins: %q.", lines(l, n), first),
			fmt.Sprintf("README.md は %sで、「%s」で始まります。", lines(l, n), first)))
		if strings.Contains(readme.Content, "hello.py") {
			b.WriteString(l.say(" It mentions hello.py by name: the README is the prose, hello.py the code.\n",
				"hello.py の名前が出てきます。README が文章、hello.py がコードです。\n"))
		} else {
			b.WriteString(l.say(" It does not mention hello.py by name; the README introduces the project, hello.py is its code.\n",
				"hello.py の名前は出てきません。README はプロジェクトの紹介で、hello.py はそのコードです。\n"))
		}
	}
	if c.maxCallsInOneReply() >= 2 {
		b.WriteString(l.say("\nBoth reads went out in ONE response as two tool calls; the loop checked and ran them one at a time and sent both results back together.",
			"\n2 つの読み込みは、1 回の返答の中の 2 つのツール呼び出しとして出ていきました。ループはそれらを 1 つずつチェックして実行し、2 つの結果をまとめて返しました。"))
	} else {
		b.WriteString(l.say("\nIn JSON mode I can make only one tool call per reply, so I read the files one after the other: two model calls instead of one.",
			"\nJSON モードでは 1 回の返答でツール呼び出しを 1 つしかできないので、ファイルを 1 つずつ読みました。モデルの呼び出しは 1 回ではなく 2 回です。"))
	}
	return finalReply(b.String())
}

func iterationLimitScript(c Conversation) Reply {
	n := c.count("list_files")
	return callReply(c.lang.sayf("Listing again (check %d): still no new file, so I keep waiting.",
		"もう一度一覧します (%d 回目の確認)。まだ新しいファイルはないので、待ち続けます。", n+1),
		ToolCall{Name: "list_files", Args: Args{{"path", "."}}})
}

func rateLimitScript(c Conversation) Reply {
	return finalReply(c.lang.say("Hello! I am glassbox's offline tutor, not a real model. In this lesson the simulated service "+
		"answers the first attempt of this call with HTTP 429 and Retry-After: 1; the loop waited one second, "+
		"retried, and this is the retry's answer.",
		"こんにちは。私は glassbox のオフラインのチューターで、本物のモデルではありません。このレッスンでは、"+
			"シミュレーションのサービスがこの呼び出しの最初の試みに HTTP 429 と Retry-After: 1 で答えます。"+
			"ループは 1 秒待ってリトライしました。これはそのリトライへの答えです。"))
}

// ----- helpers the scripts share -----

// calledTool reports whether the model called name since the request.
func (c Conversation) calledTool(name string) bool {
	for _, s := range c.steps {
		for _, call := range s.Calls {
			if call.Name == name {
				return true
			}
		}
	}
	return false
}

// maxCallsInOneReply is the largest number of tool calls in a single model
// reply since the request.
func (c Conversation) maxCallsInOneReply() int {
	n := 0
	for _, s := range c.steps {
		n = max(n, len(s.Calls))
	}
	return n
}

var (
	defRE     = regexp.MustCompile(`^\s*def\s+(\w+)\s*\(([^)]*)\)`)
	keyLineRE = regexp.MustCompile(`^\s*(def |class |return |if __name__|print\()`)
)

// explainPython describes a Python file from its actual text: the
// functions it defines and the lines that matter.
func explainPython(l language, name, content string) string {
	content = stripLineNumbers(content)
	var defs, key []string
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if m := defRE.FindStringSubmatch(line); m != nil {
			defs = append(defs, m[1]+"("+m[2]+")")
		}
		if keyLineRE.MatchString(line) && len(key) < 12 {
			key = append(key, line)
		}
	}
	var b strings.Builder
	n := lines(l, lineCount(content))
	switch len(defs) {
	case 0:
		b.WriteString(l.sayf("%s has %s and defines no functions.", "%s は %sで、関数は定義していません。", name, n))
	default:
		b.WriteString(l.sayf("%s has %s and defines %s.", "%s は %sで、%s を定義しています。", name, n, strings.Join(defs, l.say(", ", "、"))))
	}
	if len(key) > 0 {
		b.WriteString(l.say(" The lines that matter:\n", "要となる行:\n") + quote(l, strings.Join(key, "\n"), 12))
	}
	if strings.Contains(content, "__name__") {
		b.WriteString(l.sayf("\nThe `if __name__ == \"__main__\":` block runs only when you start the file directly (python3 %s).",
			"\n`if __name__ == \"__main__\":` のブロックは、ファイルを直接起動したとき (python3 %s) だけ実行されます。", name))
	}
	return b.String()
}

var lineNumberRE = regexp.MustCompile(`^\s*\d+(\t|: |\| ?)`)

// stripLineNumbers removes "12: " or "12\t" prefixes when a read tool
// numbers every line, so the file reads as it is on disk.
func stripLineNumbers(content string) string {
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	for _, l := range lines {
		if !lineNumberRE.MatchString(l) {
			return content
		}
	}
	for i, l := range lines {
		lines[i] = l[len(lineNumberRE.FindString(l)):]
	}
	return strings.Join(lines, "\n") + "\n"
}

// listingNames reads a list_files result: one name per line or a JSON list
// of names (strings or objects with a path or name).
func listingNames(content string) []string {
	lines := strings.Split(content, "\n")
	var list []json.RawMessage
	if json.Unmarshal([]byte(content), &list) == nil {
		lines = lines[:0]
		for _, raw := range list {
			var entry struct{ Name, Path string }
			var s string
			switch {
			case json.Unmarshal(raw, &s) == nil:
				lines = append(lines, s)
			case json.Unmarshal(raw, &entry) == nil:
				lines = append(lines, cmp.Or(entry.Path, entry.Name))
			}
		}
	}
	var names []string
	for _, line := range lines {
		if line = strings.TrimSpace(line); line != "" {
			names = append(names, line)
		}
	}
	return names
}

// summarizeListing turns a list_files result into "a, b, c" (in Japanese
// "a、b、c"), at most 12 names.
func summarizeListing(l language, content string) string {
	names := listingNames(content)
	if len(names) == 0 {
		return l.say("nothing (the folder is empty)", "なし (フォルダーは空です)")
	}
	if len(names) > 12 {
		names = append(names[:12:12], "…")
	}
	return strings.Join(names, l.say(", ", "、"))
}

// quote indents up to maxLines lines of s as a block.
func quote(l language, s string, maxLines int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	more := 0
	if len(lines) > maxLines {
		more = len(lines) - maxLines
		lines = lines[:maxLines]
	}
	var b strings.Builder
	for _, line := range lines {
		if line = strings.TrimRight(line, " \t\r"); line != "" {
			b.WriteString("    " + line)
		}
		b.WriteString("\n")
	}
	if more > 0 {
		b.WriteString(l.sayf("    … (%d more %s)\n", "    … (ほか %[1]d 行)\n", more, lineWord(more)))
	}
	return b.String()
}

// firstLine is the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// lineCount counts the lines of a text file.
func lineCount(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// missingReads returns a read_file call for each of files the conversation
// has no result for yet, in order.
func (c Conversation) missingReads(files []string) []ToolCall {
	var missing []ToolCall
	for _, f := range files {
		if _, ok := c.resultFor("read_file", "path", f); !ok {
			missing = append(missing, ToolCall{Name: "read_file", Args: Args{{"path", f}}})
		}
	}
	return missing
}

// byPolicy reports whether a denial came from a security rule rather than
// from the person, so the tutor never blames the person for a rule.
func byPolicy(content string) bool {
	return strings.Contains(strings.ToLower(content), "security policy")
}

// declined says who refused a call: "You declined the write" or "The
// security policy denied the write" (what is en's "the write"), in Japanese
// "あなたが書き込みを拒否した" (ja's 書き込み); the caller goes on with
// ", so …" or "ので、…".
func declined(l language, content, en, ja string) string {
	if byPolicy(content) {
		return l.say("The security policy denied "+en, "セキュリティポリシーが"+ja+"を拒否した")
	}
	return l.say("You declined "+en, "あなたが"+ja+"を拒否した")
}

// isDenial reports whether an error result says a rule or the person
// refused the call (rather than the tool failing).
func isDenial(content string) bool {
	lower := strings.ToLower(content)
	for _, w := range []string{"denied", "deny", "declined", "rejected", "not approved", "refused", "拒否"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// missingProgram reports whether a command failed because the program is
// not installed.
func missingProgram(content string) bool {
	lower := strings.ToLower(content)
	for _, w := range []string{"command not found", "executable file not found", "not recognized as", "exit status 127", "exit code 127"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	// "python3: can't open file ... No such file or directory" means the
	// program ran but the script is missing.
	return strings.Contains(lower, "no such file or directory") && !strings.Contains(lower, "can't open file")
}

// personAnswer takes the answer out of an ask_user result, whether the
// tool returned it bare ("yes"), as JSON ({"answer": "yes"}) or in a
// sentence ending in it ("The person answered: yes").
func personAnswer(content string) string {
	t := strings.TrimSpace(content)
	var obj struct {
		Answer *string `json:"answer"`
	}
	if json.Unmarshal([]byte(t), &obj) == nil && obj.Answer != nil {
		return strings.TrimSpace(*obj.Answer)
	}
	if i := strings.LastIndex(t, "\n"); i >= 0 {
		t = t[i+1:]
	}
	if _, after, ok := strings.Cut(t, ": "); ok && !strings.Contains(after, ": ") {
		t = after
	}
	return strings.Trim(strings.TrimSpace(t), `"'「」`)
}

// isYes and isNo read a person's answer to a yes/no question, in English
// or Japanese, as text or as the option number.
func isYes(answer string) bool {
	a := strings.ToLower(strings.Trim(strings.TrimSpace(answer), ".!。"))
	switch a {
	case "yes", "y", "1", "ok", "okay", "sure", "delete", "delete it", "はい", "うん", "削除して":
		return true
	}
	return strings.HasPrefix(a, "yes")
}

func isNo(answer string) bool {
	a := strings.ToLower(strings.Trim(strings.TrimSpace(answer), ".!。"))
	switch a {
	case "no", "n", "2", "nope", "keep", "keep it", "いいえ", "いや", "だめ":
		return true
	}
	return strings.HasPrefix(a, "no ") || strings.HasPrefix(a, "no,")
}

// lines says "1 line", "12 lines" (in Japanese "12 行").
func lines(l language, n int) string { return l.sayf("%d %s", "%[1]d 行", n, lineWord(n)) }

// lineWord is "line" or "lines", as n wants.
func lineWord(n int) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}

// mcpGreeting is what the mcp-tool lesson sends the MCP tool.
const mcpGreeting = "hello from the glass box"

// mcpToolScript calls a tool of an attached MCP server. Its arguments are a
// guess ({"text": …}, what an echo tool takes); a tool that wants others
// fails, and the model says so.
func mcpToolScript(c Conversation) Reply {
	l := c.lang
	if len(c.mcpTools) == 0 {
		return finalReply(l.say("No MCP server is attached, so there is no MCP tool to call. Start glassbox with "+
			"--lesson mcp-tool or --mcp demo (the demo server bundled in glassbox), --mcp NAME=COMMAND (a stdio server) "+
			"or --mcp NAME=URL (streamable HTTP); its tools join as NAME__tool. (offline tutor)",
			"MCP サーバーがつながっていないので、呼べる MCP ツールがありません。glassbox を "+
				"--lesson mcp-tool か --mcp demo (glassbox に同梱のデモサーバー)、--mcp NAME=COMMAND (stdio のサーバー)、"+
				"--mcp NAME=URL (streamable HTTP) のどれかをつけて起動してください。"+
				"そのツールは NAME__tool という名前で加わります。(オフラインのチューター)"))
	}
	tool := c.mcpTools[0]
	for _, t := range c.mcpTools {
		if strings.HasSuffix(t, "__echo") {
			tool = t
			break
		}
	}
	r, done := c.resultFor(tool, "", "")
	if !done {
		return callReply(l.say("This tool comes from an MCP server; glassbox will send it a tools/call request over JSON-RPC.",
			"このツールは MCP サーバーのものです。glassbox が JSON-RPC で tools/call リクエストを送ります。"),
			ToolCall{Name: tool, Args: Args{{"text", mcpGreeting}}})
	}
	server, _, _ := strings.Cut(tool, "__")
	if r.IsError {
		return finalReply(l.sayf("The call to %s failed: %s\nThe MCP server %s answered with an error, which came back to me as the tool's result. (offline tutor)",
			"%s の呼び出しは失敗しました: 「%s」\nMCP サーバー %s がエラーで答え、それがツールの結果として私に返ってきました。(オフラインのチューター)",
			tool, firstLine(r.Content), server))
	}
	return finalReply(l.sayf("The MCP server %s answered %s with:\n%s\nThe request and the answer are JSON-RPC frames (tools/call) beside this step. (offline tutor)",
		"MCP サーバー %s は %s にこう答えました:\n%s\nリクエストと答えは、このステップの横にある JSON-RPC のフレーム (tools/call) です。(オフラインのチューター)",
		server, tool, quote(l, r.Content, 10)))
}
