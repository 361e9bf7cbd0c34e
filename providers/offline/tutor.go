package offline

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"

	"github.com/glassbox-dev/glassbox/providers/lessons"
)

// Reply is the tutor's decision for one model call, before it is encoded in
// a wire dialect.
type Reply struct {
	// Thought is the reasoning shown in JSON mode ("Thought") and, when the
	// request asks for thoughts, as a Gemini Thought part.
	Thought string
	// Calls are the tool Calls to make (empty for a final answer).
	Calls []ToolCall
	// Text is the final answer.
	Text string
	// Misfire asks for the dialect's own kind of unusable reply: broken
	// JSON in JSON mode, MALFORMED_FUNCTION_CALL on Gemini.
	Misfire bool
	// Cut asks for a tool call Cut at the token limit: Ollama's done_reason
	// "length" (native mode: the unfinished call as text in the done line),
	// Gemini's finishReason MAX_TOKENS with no parts.
	Cut bool
	// RepeatStop asks for Ollama's token-repeat stop: the reply's tokens,
	// then the same token 31 times, then a clean end of the stream with no
	// done:true line. Gemini has no such stop.
	RepeatStop bool
}

func callReply(thought string, calls ...ToolCall) Reply {
	return Reply{Thought: thought, Calls: calls}
}

// finalReply is a final answer. Its thought is the answer's usual one, in
// the request's language (decide fills it in).
func finalReply(text string) Reply {
	return Reply{Text: text}
}

// answerThought is the thought that goes with a final answer.
func answerThought(l language) string {
	return l.say("I have what I need to answer.", "答えに必要なことはそろいました。")
}

// decide is the tutor model: the next reply, from the conversation alone.
// A lesson's request runs its script; anything else goes to the intent
// matcher; what that does not understand gets an honest explanation. The
// reply is in the language of the request (c.lang).
func decide(c Conversation) Reply {
	var r Reply
	if l, ok := lessons.ForRequest(c.request); ok && scripts[l.Name] != nil {
		r = scripts[l.Name](c)
	} else if in := matchIntent(c.request); in.kind != intentNone {
		r = in.script(c)
	} else {
		r = finalReply(fallbackText(c.lang, c.goLive))
	}
	if r.Thought == "" && len(r.Calls) == 0 {
		r.Thought = answerThought(c.lang)
	}
	return r
}

// withoutTools rewrites a reply for a request that declared no tools: the
// tutor cannot call anything, so it says, in language l, what it would have
// done.
func withoutTools(r Reply, l language) Reply {
	if len(r.Calls) == 0 && !r.Misfire {
		return r
	}
	var names []string
	for _, c := range r.Calls {
		b, _ := c.Args.MarshalJSON()
		names = append(names, c.Name+string(b))
	}
	next := l.say("reply", "次の返答をする")
	if len(names) > 0 {
		next = l.sayf("call %s", " %s を呼び出す", strings.Join(names, l.say(" and ", " と ")))
	}
	return Reply{Thought: answerThought(l), Text: l.sayf("(offline tutor) This request declared no tools, so I can only answer in text. "+
		"With tools I would now %s.",
		"(オフラインのチューター) このリクエストはツールを宣言していないので、テキストで答えることしかできません。"+
			"ツールがあれば、ここで%sところです。", next)}
}

// ----- free-form requests -----

// intentKind is what a free-form request asks for.
type intentKind int

const (
	intentNone intentKind = iota
	intentList
	intentRead
	intentWrite
	intentRun
	intentDelete
)

// intent is a free-form request as the matcher understood it.
type intent struct {
	kind  intentKind
	files []string // file names found in the text, in order
	// names are files named without an extension ("README を読んで",
	// "show me the Makefile"): the read script lists the workspace to find
	// which files they are.
	names   []string
	command string   // intentRun: the command to run
	lang    language // the request's language, which the answer uses
}

var (
	fileNameRE = regexp.MustCompile(`(?:\.{1,2}/)*[A-Za-z0-9_][A-Za-z0-9_./-]*\.[A-Za-z0-9]+`)
	quotedRE   = regexp.MustCompile("`([^`]+)`|\"([^\"]+)\"|「([^」]+)」")
	deleteRE   = regexp.MustCompile(`(?i)\b(delete|remove|rm)\b|削除|消して|消去|消す`)
	writeRE    = regexp.MustCompile(`(?i)\b(write|create|make)\b|作成|書いて|作って|書き込`)
	// writtenRE asks what is written in a file ("何が書いてある"), which
	// reads it: 書いて there is no request to write.
	writtenRE = regexp.MustCompile(`書いてあ|書かれて`)
	runRE     = regexp.MustCompile(`(?i)\b(run|execute)\b|実行|動かして|走らせて`)
	readRE    = regexp.MustCompile(`(?i)\b(read|show|cat|open|print)\b|読んで|読む|読み|見せて|表示|開いて|中身|内容|説明|要約`)
	listRE    = regexp.MustCompile(`(?i)\b(list|files|ls|dir)\b|一覧|ファイル|リスト`)
	// A name without an extension: after an English read verb, or before
	// a Japanese particle ("README を", "Makefile の中身").
	bareNameRE = regexp.MustCompile(`(?i)\b(?:read|show|cat|open|print)\s+(?:me\s+)?(?:the\s+)?([A-Za-z0-9_][A-Za-z0-9_/-]*)\b|([A-Za-z0-9_][A-Za-z0-9_/-]*)\s*(?:を|の|には|って)`)
)

// notANameWord are words bareNameRE finds after a verb that name no file.
var notANameWord = map[string]bool{"me": true, "the": true, "a": true, "all": true, "it": true, "this": true, "that": true,
	"file": true, "files": true, "folder": true, "directory": true, "list": true, "contents": true, "everything": true, "project": true}

// matchIntent understands a small set of requests in English and Japanese:
// delete, write/create, run, read (a named file) and list, tried in that
// order. A file named with no verb is read.
func matchIntent(text string) intent {
	in := intent{lang: languageOf(text)}
	for _, f := range fileNameRE.FindAllString(text, -1) {
		if looksLikeFileName(f) {
			in.files = append(in.files, f)
		}
	}
	if len(in.files) == 0 {
		for _, m := range bareNameRE.FindAllStringSubmatch(text, -1) {
			if n := m[1] + m[2]; !notANameWord[strings.ToLower(n)] {
				in.names = append(in.names, n)
			}
		}
	}
	switch {
	case strings.TrimSpace(text) == "":
	case deleteRE.MatchString(text):
		in.kind = intentDelete
	case writeRE.MatchString(text) && !writtenRE.MatchString(text):
		in.kind = intentWrite
	case runRE.MatchString(text):
		in.kind = intentRun
		in.command = commandIn(text, in.files)
	case readRE.MatchString(text) && len(in.files)+len(in.names) > 0:
		in.kind = intentRead
	case listRE.MatchString(text):
		in.kind = intentList
	case len(in.files) > 0:
		in.kind = intentRead
	}
	return in
}

// looksLikeFileName rejects matches such as "e.g" or "1.5" that the file
// name pattern also finds in prose.
func looksLikeFileName(s string) bool {
	base := path.Base(s)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if len(stem) < 2 && len(ext) < 3 {
		return false
	}
	return strings.IndexFunc(stem, unicode.IsLetter) >= 0 || strings.IndexFunc(ext, unicode.IsLetter) >= 0
}

// commandIn finds the command a run request names: quoted text, or a
// script file to start with its interpreter.
func commandIn(text string, files []string) string {
	if m := quotedRE.FindStringSubmatch(text); m != nil {
		for _, g := range m[1:] {
			if g != "" {
				return g
			}
		}
	}
	for _, f := range files {
		switch path.Ext(f) {
		case ".py":
			return "python3 " + f
		case ".sh":
			return "sh " + f
		}
	}
	return ""
}

// say picks the English or Japanese text.
func (in intent) say(en, ja string) string { return in.lang.say(en, ja) }

// script runs the simple script for the intent.
func (in intent) script(c Conversation) Reply {
	switch in.kind {
	case intentList:
		return in.listScript(c)
	case intentRead:
		return in.readScript(c)
	case intentWrite:
		return in.writeScript(c)
	case intentRun:
		return in.runScript(c)
	case intentDelete:
		return in.deleteScript(c)
	}
	return finalReply(fallbackText(in.lang, c.goLive))
}

func (in intent) note(en, ja string) string {
	return "\n" + in.say("(offline tutor: I read your request as "+en+".)", "(オフラインのチューター: 「"+ja+"」と解釈しました)")
}

func (in intent) listScript(c Conversation) Reply {
	r, done := c.resultFor("list_files", "", "")
	if !done {
		return callReply(in.say("The person wants to see the files.", "ファイルの一覧を見たいという依頼です。"),
			ToolCall{Name: "list_files", Args: Args{{"path", "."}}})
	}
	if r.IsError {
		return finalReply(in.say("I could not list the files: ", "ファイル一覧を取得できませんでした: ") + in.lang.cite(firstLine(r.Content)))
	}
	return finalReply(in.say("Here is what list_files returned for the workspace:\n", "ワークスペースのファイル一覧です:\n") +
		quote(in.lang, r.Content, 30) + in.note("\"list the files\"", "ファイル一覧"))
}

// named finds the files a request named without an extension: it lists
// the workspace first, then matches each name to a file whose name, or
// name before its extension, is the same in any case. While the listing is
// not there yet it returns the reply that asks for it; a name no file has
// ends the turn with the files that do exist.
func (in intent) named(c Conversation) ([]string, *Reply) {
	list, listed := c.resultFor("list_files", "", "")
	names := strings.Join(in.names, ", ")
	if !listed {
		r := callReply(in.lang.sayf("The person named %s without an extension; the file list will tell me which file that is.",
			"%s は拡張子なしで指定されているので、ファイル一覧を見てどのファイルのことかを確かめます。", names),
			ToolCall{Name: "list_files", Args: Args{{"path", "."}}})
		return nil, &r
	}
	if list.IsError {
		r := finalReply(in.lang.sayf("I could not list the files to find %s: %s", "%s を探すためにファイルを一覧しようとしましたが、できませんでした: 「%s」",
			names, firstLine(list.Content)))
		return nil, &r
	}
	var files []string
	for _, n := range in.names {
		for _, f := range listingNames(list.Content) {
			base := path.Base(f)
			if strings.EqualFold(base, n) || strings.EqualFold(strings.TrimSuffix(base, path.Ext(base)), path.Base(n)) {
				files = append(files, f)
				break
			}
		}
	}
	if len(files) == 0 {
		r := finalReply(in.lang.sayf("No file here is called %s. The files: %s", "%s という名前のファイルは見つかりませんでした。ファイル: %s",
			names, summarizeListing(in.lang, list.Content)) + in.note("\"read "+names+"\"", names+" を読む"))
		return nil, &r
	}
	return files, nil
}

func (in intent) readScript(c Conversation) Reply {
	files := in.files
	if len(files) == 0 {
		found, next := in.named(c)
		if next != nil {
			return *next
		}
		files = found
	}
	if len(files) > 3 {
		files = files[:3]
	}
	missing := c.missingReads(files)
	if len(missing) > 0 {
		if c.quirks.OneCallPerReply {
			missing = missing[:1]
		}
		return callReply(in.lang.sayf("The person wants to see %s.", "%s を見たいという依頼です。", strings.Join(files, ", ")), missing...)
	}
	var b strings.Builder
	for _, f := range files {
		r, _ := c.resultFor("read_file", "path", f)
		if r.IsError {
			fmt.Fprintf(&b, in.say("I could not read %s: %s\n", "%s を読めませんでした: 「%s」\n"), f, firstLine(r.Content))
			continue
		}
		fmt.Fprintf(&b, "%s (%s):\n", f, lines(in.lang, lineCount(r.Content)))
		b.WriteString(quote(in.lang, r.Content, 20))
	}
	return finalReply(b.String() + in.note("\"read "+strings.Join(files, ", ")+"\"", strings.Join(files, ", ")+" を読む"))
}

func (in intent) writeScript(c Conversation) Reply {
	if len(in.files) == 0 {
		return finalReply(in.say("Which file should I write? Name it, for example: create notes/ideas.txt.",
			"どのファイルに書けばよいですか？ 例: notes/ideas.txt を作成して") + in.note("\"write a file\"", "ファイルを書く"))
	}
	f := in.files[0]
	r, done := c.resultFor("write_file", "path", f)
	if !done {
		return callReply(in.lang.sayf("Writing %s changes the workspace, so the person will be asked to approve it.",
			"%s を書くとワークスペースが変わるので、人に承認を求めます。", f),
			ToolCall{Name: "write_file", Args: Args{{"path", f}, {"content", contentFor(f)}}})
	}
	switch {
	case r.IsError && isDenial(r.Content):
		if byPolicy(r.Content) {
			return finalReply(in.say("The security policy denied the write, so "+f+" was not written.", "セキュリティポリシーが拒否したので "+f+" は書きませんでした。"))
		}
		return finalReply(in.say("You declined, so "+f+" was not written.", "拒否されたので "+f+" は書きませんでした。"))
	case r.IsError:
		return finalReply(in.say("Writing "+f+" failed: ", f+" を書けませんでした: ") + in.lang.cite(firstLine(r.Content)))
	}
	return finalReply(in.say("I wrote "+f+":\n", f+" を書きました:\n") + quote(in.lang, contentFor(f), 10) +
		in.note("\"write "+f+"\"", f+" を作成"))
}

// contentFor is what the free-form write script puts in a new file.
func contentFor(name string) string {
	switch {
	case strings.Contains(strings.ToLower(name), "farewell") && path.Ext(name) == ".py":
		return farewellSource
	case path.Ext(name) == ".py":
		return "# " + name + ": written by the glassbox offline tutor.\nprint(\"hello from " + name + "\")\n"
	}
	return "Written by the glassbox offline tutor.\n"
}

func (in intent) runScript(c Conversation) Reply {
	if in.command == "" {
		return finalReply(in.say("Which command should I run? Put it in backticks, for example: run `python3 hello.py`.",
			"どのコマンドを実行しますか？ 例: `python3 hello.py` を実行して") + in.note("\"run a command\"", "コマンドを実行"))
	}
	r, done := c.resultFor("execute_command", "command", in.command)
	if !done {
		return callReply(in.say("Running a command needs the person's approval.", "コマンドの実行には人の承認が要ります。"),
			ToolCall{Name: "execute_command", Args: Args{{"command", in.command}}})
	}
	switch {
	case r.IsError && isDenial(r.Content):
		return finalReply(in.say("You declined, so `"+in.command+"` did not run.", "拒否されたので `"+in.command+"` は実行しませんでした。"))
	case r.IsError:
		return finalReply(in.say("`"+in.command+"` failed:\n", "`"+in.command+"` は失敗しました:\n") + quote(in.lang, r.Content, 12))
	}
	return finalReply(in.say("`"+in.command+"` printed:\n", "`"+in.command+"` の出力:\n") + quote(in.lang, r.Content, 20) +
		in.note("\"run "+in.command+"\"", in.command+" を実行"))
}

func (in intent) deleteScript(c Conversation) Reply {
	if len(in.files) == 0 {
		return finalReply(in.say("Which file should I delete? Name it, for example: delete old_log.txt.",
			"どのファイルを削除しますか？ 例: old_log.txt を削除して") + in.note("\"delete a file\"", "ファイルを削除"))
	}
	f := in.files[0]
	command := "rm " + f
	r, done := c.resultFor("execute_command", "command", command)
	if !done {
		return callReply(in.say("Deleting is a shell command; the person will be asked to approve it.", "削除はシェルのコマンドなので、人に承認を求めます。"),
			ToolCall{Name: "execute_command", Args: Args{{"command", command}}})
	}
	switch {
	case r.IsError && isDenial(r.Content):
		return finalReply(in.say("You declined, so "+f+" is still there.", "拒否されたので "+f+" は残してあります。"))
	case r.IsError:
		return finalReply(in.say("Deleting "+f+" failed: ", f+" を削除できませんでした: ") + in.lang.cite(firstLine(r.Content)))
	}
	return finalReply(in.say("Deleted "+f+".", f+" を削除しました。") + in.note("\"delete "+f+"\"", f+" を削除"))
}

// fallbackText is the honest answer, in language l, to a request the
// tutor does not know; goLive is how this person reaches a real model
// (Config.GoLive), "" for glassbox's own flags.
func fallbackText(l language, goLive string) string {
	var names []string
	for _, lesson := range lessons.All() {
		names = append(names, lesson.Name)
	}
	known := strings.Join(names, ", ")
	if goLive == "" {
		goLive = l.say("set GEMINI_API_KEY and start glassbox with --provider gemini, "+
			"or start Ollama (ollama pull llama3.1:8b) and start it with --provider llama",
			"GEMINI_API_KEY を設定して glassbox を --provider gemini で起動するか、"+
				"Ollama を起動して (ollama pull llama3.1:8b) --provider llama で起動します")
	}
	if l == japanese {
		return "これは glassbox のオフライン・シミュレーションです。本物のモデルは動いておらず、台本どおりに答えるチューターが応答しています。" +
			"わかるのは同梱のレッスン (" + known + "。l キーか `glassbox lessons` で一覧) と、" +
			"ファイルの一覧・読む・書く・実行・削除といった簡単な依頼 (例: 「hello.pyを読んで」) だけです。\n" +
			"本物のモデルと話すには: " + goLive + "。"
	}
	return "This is glassbox's offline simulation: no real model is running, and a scripted tutor is answering. " +
		"It only knows the bundled lessons (" + known + "; the l key or `glassbox lessons` lists them) " +
		"and simple requests to list, read, write, run or delete files, such as \"read hello.py\".\n" +
		"To talk to a real model: " + goLive + "."
}
