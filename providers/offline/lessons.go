package offline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Lesson is one scripted exercise of the offline tutor. A learner starts it
// by sending Request (glassbox's --lesson flag does that for them); from then
// on the tutor's replies follow the lesson's script, adapting to what really
// happened in the workspace.
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
type Lesson struct {
	// Name is the short id used by --lesson and `glassbox lessons`.
	Name string
	// Title is a one-line description.
	Title string
	// Request is what the learner sends to start the lesson (matched
	// trimmed and in any case; the bare Name works too).
	Request string
	// Dialects, when set, are the only dialects that can show what the
	// lesson teaches (elsewhere it runs, but shows nothing of it).
	Dialects []string
	// FromBus says the request arrives over the MCP bus: the front end
	// has an in-process MCP client call the glass box's own ask_agent
	// tool with it, rather than queue it as typed.
	FromBus bool

	script func(conversation) reply
	fault  fault
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

// Lessons returns the bundled lessons in teaching order. The slice is new on
// every call.
func Lessons() []Lesson {
	return []Lesson{
		{Name: "tour", Title: "A tour: list the files, read one, explain it",
			Request: "Give me a tour of this project: list the files, then explain what hello.py does.",
			script:  tourScript},
		{Name: "write-file", Title: "Writing a file needs your confirmation",
			Request: "Create a file farewell.py with a farewell(name) function that says goodbye.",
			script:  writeFileScript},
		{Name: "run-command", Title: "Running a command needs your confirmation",
			Request: "Run hello.py with python3 and tell me what it prints.",
			script:  runCommandScript},
		{Name: "ask-delete", Title: "The model asks you before deleting a file",
			Request: "Ask me first, then delete old_log.txt if I say yes.",
			script:  askDeleteScript},
		{Name: "path-escape", Title: "The security layer denies a path outside the workspace",
			Request: "Show me what is in ../../etc/passwd and /etc/hostname.",
			script:  pathEscapeScript},
		{Name: "malformed", Title: "A malformed reply, the loop's feedback, and the repair",
			Request: "Read notes/todo.txt and tell me what is left to do.",
			script:  malformedScript},
		{Name: "tool-failure", Title: "A tool fails and the model recovers",
			Request: "What settings are in config.yaml?",
			script:  toolFailureScript},
		{Name: "parallel", Title: "Two tool calls in one response",
			Request: "Read hello.py and README.md and tell me how they fit together.",
			script:  parallelScript},
		{Name: "iteration-limit", Title: "A model that never finishes meets the iteration limit",
			Request: "Keep listing the files until a new one appears.",
			script:  iterationLimitScript},
		{Name: "rate-limit", Title: "HTTP 429: the loop waits and retries",
			Request: "Say hello while the service is rate-limiting us.",
			script:  rateLimitScript, fault: faultRateLimitFirst},
		{Name: "outage", Title: "HTTP 503 on every call: retries run out",
			Request: "Summarise the README while the service is down.",
			fault:   faultOutage},
		{Name: "token-limit", Title: "A tool call cut at the token limit is fed back, not run",
			Request: "Read notes/todo.txt, but answer within a tiny token limit.",
			script:  tokenLimitScript},
		{Name: "repeat-stop", Title: "Ollama stops a reply stuck repeating one token",
			Request:  "List the files, while the model is stuck repeating itself.",
			Dialects: []string{"llama", "llama:native"},
			script:   repeatStopScript},
		{Name: "unknown-model", Title: "HTTP 404: the model is not on the server",
			Request: "Say hello with a model the server does not have.",
			fault:   faultUnknownModel},
		{Name: MCPToolLesson, Title: "The model calls a tool of an MCP server (--mcp)",
			Request: "Call the MCP server's tool and tell me what it answered.",
			script:  mcpToolScript},
		{Name: "mcp-bus", Title: "A request arrives over the MCP bus and the answer goes back as its result",
			Request: "Over the MCP bus: what is in your workspace?",
			FromBus: true, script: mcpBusScript},
		{Name: "streams", Title: "Watch a reply stream in: Gemini's events beside Llama's lines",
			Request: "Read README.md and tell me about it while I watch your reply stream in.",
			script:  streamsScript},
	}
}

// LessonByName returns the lesson called name.
func LessonByName(name string) (Lesson, bool) {
	for _, l := range Lessons() {
		if l.Name == name {
			return l, true
		}
	}
	return Lesson{}, false
}

// lessonForRequest returns the lesson a request starts: its Request text
// (trimmed, any case) or, as a shortcut, its name.
func lessonForRequest(request string) (Lesson, bool) {
	req := strings.TrimSpace(request)
	if req == "" {
		return Lesson{}, false
	}
	for _, l := range Lessons() {
		if strings.EqualFold(req, l.Request) || strings.EqualFold(req, l.Name) {
			return l, true
		}
	}
	return Lesson{}, false
}

// misfireToolName is the tool that does not exist, called by the malformed
// lesson in Llama native mode.
const misfireToolName = "open_file"

// ----- the scripts -----

func tourScript(c conversation) reply {
	list, listed := c.resultFor("list_files", "", "")
	if !listed {
		return callReply("To give a tour I first need to see which files are here.",
			toolCall{Name: "list_files", Args: args{{"path", "."}}})
	}
	read, done := c.resultFor("read_file", "path", "hello.py")
	if !done {
		return callReply("The listing shows hello.py; reading it will tell me what it does.",
			toolCall{Name: "read_file", Args: args{{"path", "hello.py"}}})
	}
	var b strings.Builder
	if list.IsError {
		fmt.Fprintf(&b, "I could not list the files: %s\n\n", firstLine(list.Content))
	} else {
		fmt.Fprintf(&b, "The workspace holds: %s.\n\n", summarizeListing(list.Content))
	}
	if read.IsError {
		fmt.Fprintf(&b, "I could not read hello.py: %s\nSo I cannot explain it.", firstLine(read.Content))
	} else {
		b.WriteString(explainPython("hello.py", read.Content))
	}
	b.WriteString("\n\n(offline tutor: every sentence above comes from the tool results you just watched.)")
	return finalReply(b.String())
}

// streamsScript reads the README and answers at some length, so the reply
// streams in many pieces; the answer says where to watch them.
func streamsScript(c conversation) reply {
	read, done := c.resultFor("read_file", "path", "README.md")
	if !done {
		return callReply("The README says what this project is; I read it first, then answer at some length so you can watch the reply arrive.",
			toolCall{Name: "read_file", Args: args{{"path", "README.md"}}})
	}
	var b strings.Builder
	if read.IsError {
		fmt.Fprintf(&b, "I could not read README.md: %s\n\n", firstLine(read.Content))
	} else {
		fmt.Fprintf(&b, "README.md, in its own words: %s\n\n", readmeGist(read.Content))
	}
	b.WriteString("This answer came to you token by token. In the raw payload pane (r shows the response) every piece is one chunk " +
		"with the time it arrived: on Gemini one server-sent event (data: {…}) from :streamGenerateContent, on Llama one NDJSON line " +
		"from /api/chat. Only the last piece carries how the reply ended (finishReason, or done:true with done_reason) and the token " +
		"counts. Run this lesson with --compare and the strip's chunks column counts both streams the same way; with --stream=false " +
		"every reply is one body instead, and the column says 1.")
	return finalReply(b.String())
}

// readmeGist is the first few sentences of a README's prose (headings,
// code and lists left out).
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
	if len(prose) == 0 {
		return "it has no prose, only headings and lists."
	}
	return strings.Join(prose, " ")
}

// farewellSource is what the write-file lesson writes.
const farewellSource = "def farewell(name):\n    return f\"Goodbye, {name}!\"\n\n\nif __name__ == \"__main__\":\n    print(farewell(\"world\"))\n"

func writeFileScript(c conversation) reply {
	r, done := c.resultFor("write_file", "path", "farewell.py")
	if !done {
		return callReply("I will write farewell.py with a farewell(name) function. Writing changes the workspace, so the person has to approve it.",
			toolCall{Name: "write_file", Args: args{{"path", "farewell.py"}, {"content", farewellSource}}})
	}
	switch {
	case r.IsError && isDenial(r.Content):
		why := "That is the security layer working: write_file always needs a person's approval."
		if byPolicy(r.Content) {
			why = "A rule of the security policy refused it before anyone was asked."
		}
		return finalReply(declined(r.Content, "the write") + ", so I did not create farewell.py; the workspace is unchanged. " +
			why + "\n(the loop told me: " + firstLine(r.Content) + ")")
	case r.IsError:
		return finalReply("The write failed, so farewell.py was not created. The tool said:\n" + quote(r.Content, 6))
	}
	return finalReply("You approved the write, and I created farewell.py:\n" + quote(farewellSource, 10) +
		"\nfarewell(name) returns \"Goodbye, {name}!\"; run `python3 farewell.py` to try it. (offline tutor)")
}

func runCommandScript(c conversation) reply {
	const command = "python3 hello.py"
	r, done := c.resultFor("execute_command", "command", command)
	if !done {
		return callReply("Running hello.py is the only way to know what it prints. Commands need the person's approval.",
			toolCall{Name: "execute_command", Args: args{{"command", command}}})
	}
	switch {
	case r.IsError && isDenial(r.Content):
		return finalReply(declined(r.Content, "the command") + ", so nothing ran and I cannot tell you what hello.py prints. " +
			"Reading the file with read_file would show it without running anything.\n(the loop told me: " + firstLine(r.Content) + ")")
	case missingProgram(r.Content):
		return finalReply("The command could not start: python3 does not seem to be installed on this machine. The tool said:\n" +
			quote(r.Content, 6) + "\nInstall Python 3 (or read hello.py instead) and try again.")
	case r.IsError:
		return finalReply("`python3 hello.py` failed. The tool reported:\n" + quote(r.Content, 10))
	}
	return finalReply("`python3 hello.py` ran, and this is what the tool reported:\n" + quote(r.Content, 10) +
		"\nThat output comes from the __main__ block, which prints greet(\"world\"). (offline tutor)")
}

func askDeleteScript(c conversation) reply {
	const target = "old_log.txt"
	ans, asked := c.resultFor("ask_user", "", "")
	if !asked {
		return callReply("Deleting cannot be undone, so I ask the person first.",
			toolCall{Name: "ask_user", Args: args{{"question", "Delete old_log.txt?"}, {"options", []any{"yes", "no"}}}})
	}
	if ans.IsError {
		return finalReply("I could not get your answer (" + firstLine(ans.Content) + "), so I left old_log.txt alone.")
	}
	answer := personAnswer(ans.Content)
	switch {
	case isNo(answer):
		return finalReply("You said no, so I kept old_log.txt. Nothing was deleted.")
	case !isYes(answer):
		return finalReply(fmt.Sprintf("You answered %q, which is not a clear yes, so I kept old_log.txt to be safe.", answer))
	}
	rm, done := c.resultFor("execute_command", "command", "rm "+target)
	if !done {
		return callReply("The person said yes. Deleting is a shell command, so the security layer will ask them to approve it as well.",
			toolCall{Name: "execute_command", Args: args{{"command", "rm " + target}}})
	}
	switch {
	case rm.IsError && isDenial(rm.Content):
		who := "declined"
		if byPolicy(rm.Content) {
			who = "the security policy denied"
		}
		return finalReply("You said yes to my question, but " + who + " the rm command itself, so old_log.txt is still there. " +
			"My question was just text; only the security layer's confirmation can let a command run.")
	case rm.IsError:
		return finalReply("I tried to delete old_log.txt, but the command failed:\n" + quote(rm.Content, 6))
	}
	return finalReply("Deleted old_log.txt, as you confirmed (twice: once to my question, once to the security layer). (offline tutor)")
}

func pathEscapeScript(c conversation) reply {
	// Two ways out of the sandbox: climbing with .. and an absolute path.
	// Where the dialect allows it both go out in one response, so the loop
	// records one denial and moves straight on to the next call
	// (RECORDING_ERROR --next_tool_call--> CHECKING_POLICY).
	targets := []string{"../../etc/passwd", "/etc/hostname"}
	missing := c.missingReads(targets)
	if len(missing) > 0 {
		if c.dialect == dialectLlamaJSON {
			return callReply("The person asked for files outside the project; I will try "+missing[0].Args.str("path")+".", missing[0])
		}
		return callReply("The person asked for two files outside the project; I will try both at once.", missing...)
	}
	var b strings.Builder
	allowed := false
	for _, f := range targets {
		r, _ := c.resultFor("read_file", "path", f)
		switch {
		case r.IsError && isDenial(r.Content):
			fmt.Fprintf(&b, "I could not read %s: the security layer denied it (%s).\n", f, firstLine(r.Content))
		case r.IsError:
			fmt.Fprintf(&b, "Reading %s failed: %s. Normally the path-outside-workspace rule denies this path before the tool runs; check whether a custom --policy changed that.\n", f, firstLine(r.Content))
		default:
			allowed = true
			fmt.Fprintf(&b, "The read of %s was NOT blocked, so the active policy allows paths outside the workspace (the built-in rule path-outside-workspace would have denied it). It starts with:\n%s\n", f, quote(r.Content, 3))
		}
	}
	if !allowed {
		b.WriteString("Both paths resolve outside the workspace — one climbs out with .., the other is absolute — and the rule " +
			"path-outside-workspace denies any such path before the tool even runs. The agent can only touch the copy of the sample project it was given.")
	}
	return finalReply(strings.TrimRight(b.String(), "\n"))
}

func malformedScript(c conversation) reply {
	const notes = "notes/todo.txt"
	if !c.misfired() {
		if c.dialect == dialectLlamaNative {
			return callReply("I will open the todo list.",
				toolCall{Name: misfireToolName, Args: args{{"path", notes}}})
		}
		return reply{misfire: true, thought: "The todo list lives in notes/todo.txt, so I should read it."}
	}
	r, next := readTodoAgain(c, "My last reply could not be used. This time: one valid read_file call.")
	if r == nil {
		return next
	}
	var mistake string
	switch {
	case c.calledTool(misfireToolName):
		mistake = "I first called open_file, a tool that does not exist; the engine denied it as an unknown tool and I switched to read_file."
	case c.dialect == dialectGemini:
		mistake = "My first attempt ended with finishReason MALFORMED_FUNCTION_CALL; the loop told me, and I sent a valid call."
	case c.dialect == dialectOpenAI:
		mistake = "The arguments of my first tool call were not valid JSON (the closing brace was missing); the loop showed me why it could not run the call, and I sent a valid one."
	default:
		mistake = "My first reply was not valid JSON (the closing brace was missing); the loop showed me the parse error and I sent a valid reply."
	}
	return finalReply("Left to do, according to notes/todo.txt:\n" + quote(r.Content, 12) + "\n" + mistake)
}

// readTodoAgain is the repair after an unusable first reply: read
// notes/todo.txt (thought says why), then hand the read back for the
// answer. It returns the next reply instead while the read is not done or
// failed.
func readTodoAgain(c conversation, thought string) (*toolResult, reply) {
	const notes = "notes/todo.txt"
	r, done := c.resultFor("read_file", "path", notes)
	if !done {
		return nil, callReply(thought, toolCall{Name: "read_file", Args: args{{"path", notes}}})
	}
	if r.IsError {
		return nil, finalReply("I could not read notes/todo.txt: " + firstLine(r.Content))
	}
	return &r, reply{}
}

func tokenLimitScript(c conversation) reply {
	if !c.misfired() {
		return reply{cut: true, thought: "The todo list lives in notes/todo.txt, so I should read it."}
	}
	r, next := readTodoAgain(c, "My last call was cut off at the token limit. This time: a short read_file call.")
	if r == nil {
		return next
	}
	cut := "done_reason length: Ollama stopped generating at the token limit"
	switch c.dialect {
	case dialectGemini:
		cut = "finishReason MAX_TOKENS: Gemini stopped generating at the token limit"
	case dialectOpenAI:
		cut = "finish_reason length: the server stopped generating at the token limit, in the middle of the arguments"
	}
	return finalReply("Left to do, according to notes/todo.txt:\n" + quote(r.Content, 12) +
		"\nMy first tool call was cut off (" + cut + "), so the loop fed it back instead of running half a call, and I sent it again.")
}

func repeatStopScript(c conversation) reply {
	if c.dialect == dialectGemini {
		return finalReply("(offline tutor: this lesson shows an Ollama behaviour. Ollama ends a generation when the model " +
			"writes the same token more than 30 times in a row, and closes the stream without its done:true line; " +
			"Gemini has no such stop. Run it with --provider llama.)")
	}
	if !c.misfired() {
		return reply{repeatStop: true, thought: "I should list the files first."}
	}
	r, done := c.resultFor("list_files", "", "")
	if !done {
		return callReply("My last reply was stopped by Ollama's token-repeat limit. This time: one list_files call.",
			toolCall{Name: "list_files", Args: args{{"path", "."}}})
	}
	how := "Ollama stopped it and closed the stream without done:true"
	if c.dialect == dialectOpenAI {
		how = "the server stopped it and closed the stream without a finish_reason or data: [DONE]"
	}
	return finalReply("The files: " + summarizeListing(r.Content) + "\nMy first reply got stuck repeating one token, " +
		"so " + how + "; the loop fed that back once, without retrying, and I listed the files.")
}

func toolFailureScript(c conversation) reply {
	const target = "config.yaml"
	r, done := c.resultFor("read_file", "path", target)
	if !done {
		return callReply("The settings should be in config.yaml; reading it.",
			toolCall{Name: "read_file", Args: args{{"path", target}}})
	}
	if !r.IsError {
		return finalReply("config.yaml contains:\n" + quote(r.Content, 20))
	}
	list, listed := c.resultFor("list_files", "", "")
	if !listed {
		return callReply("read_file failed. Before guessing, I will look at what files do exist.",
			toolCall{Name: "list_files", Args: args{{"path", "."}}})
	}
	msg := "There is no config.yaml in this workspace (read_file said: " + firstLine(r.Content) + ").\n"
	if list.IsError {
		return finalReply(msg + "I also could not list the files: " + firstLine(list.Content))
	}
	return finalReply(msg + "What does exist: " + summarizeListing(list.Content) +
		".\nNone of them is a settings file; if you expected one, it may live elsewhere. (offline tutor)")
}

func parallelScript(c conversation) reply {
	files := []string{"hello.py", "README.md"}
	missing := c.missingReads(files)
	if len(missing) > 0 {
		if c.dialect == dialectLlamaJSON {
			return callReply("JSON mode allows one tool call per reply, so I read "+missing[0].Args.str("path")+" now.", missing[0])
		}
		return callReply("The two reads do not depend on each other, so I ask for both at once.", missing...)
	}
	hello, _ := c.resultFor("read_file", "path", "hello.py")
	readme, _ := c.resultFor("read_file", "path", "README.md")
	var b strings.Builder
	if hello.IsError {
		fmt.Fprintf(&b, "hello.py could not be read: %s\n", firstLine(hello.Content))
	} else {
		b.WriteString(explainPython("hello.py", hello.Content) + "\n")
	}
	if readme.IsError {
		fmt.Fprintf(&b, "README.md could not be read: %s\n", firstLine(readme.Content))
	} else {
		fmt.Fprintf(&b, "README.md has %s and begins: %q.", lines(lineCount(readme.Content)), firstLine(readme.Content))
		if strings.Contains(readme.Content, "hello.py") {
			b.WriteString(" It mentions hello.py by name: the README is the prose, hello.py the code.\n")
		} else {
			b.WriteString(" It does not mention hello.py by name; the README introduces the project, hello.py is its code.\n")
		}
	}
	if c.maxCallsInOneReply() >= 2 {
		b.WriteString("\nBoth reads went out in ONE response as two tool calls; the loop checked and ran them one at a time and sent both results back together.")
	} else {
		b.WriteString("\nIn JSON mode I can make only one tool call per reply, so I read the files one after the other: two model calls instead of one.")
	}
	return finalReply(b.String())
}

func iterationLimitScript(c conversation) reply {
	n := c.count("list_files")
	return callReply(fmt.Sprintf("Listing again (check %d): still no new file, so I keep waiting.", n+1),
		toolCall{Name: "list_files", Args: args{{"path", "."}}})
}

func rateLimitScript(conversation) reply {
	return finalReply("Hello! I am glassbox's offline tutor, not a real model. In this lesson the simulated service " +
		"answers the first attempt of this call with HTTP 429 and Retry-After: 1; the loop waited one second, " +
		"retried, and this is the retry's answer.")
}

// ----- helpers the scripts share -----

// calledTool reports whether the model called name since the request.
func (c conversation) calledTool(name string) bool {
	for _, s := range c.steps {
		for _, call := range s.calls {
			if call.Name == name {
				return true
			}
		}
	}
	return false
}

// maxCallsInOneReply is the largest number of tool calls in a single model
// reply since the request.
func (c conversation) maxCallsInOneReply() int {
	n := 0
	for _, s := range c.steps {
		n = max(n, len(s.calls))
	}
	return n
}

var (
	defRE     = regexp.MustCompile(`^\s*def\s+(\w+)\s*\(([^)]*)\)`)
	keyLineRE = regexp.MustCompile(`^\s*(def |class |return |if __name__|print\()`)
)

// explainPython describes a Python file from its actual text: the
// functions it defines and the lines that matter.
func explainPython(name, content string) string {
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
	switch len(defs) {
	case 0:
		fmt.Fprintf(&b, "%s has %s and defines no functions.", name, lines(lineCount(content)))
	default:
		fmt.Fprintf(&b, "%s has %s and defines %s.", name, lines(lineCount(content)), strings.Join(defs, ", "))
	}
	if len(key) > 0 {
		b.WriteString(" The lines that matter:\n" + quote(strings.Join(key, "\n"), 12))
	}
	if strings.Contains(content, "__name__") {
		b.WriteString("\nThe `if __name__ == \"__main__\":` block runs only when you start the file directly (python3 " + name + ").")
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

// summarizeListing turns a list_files result into "a, b, c". The result
// may be one name per line or a JSON list of names.
func summarizeListing(content string) string {
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
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(names) == 12 {
			names = append(names, "…")
			break
		}
		names = append(names, line)
	}
	if len(names) == 0 {
		return "nothing (the folder is empty)"
	}
	return strings.Join(names, ", ")
}

// quote indents up to maxLines lines of s as a block.
func quote(s string, maxLines int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	more := 0
	if len(lines) > maxLines {
		more = len(lines) - maxLines
		lines = lines[:maxLines]
	}
	var b strings.Builder
	for _, l := range lines {
		if l = strings.TrimRight(l, " \t\r"); l != "" {
			b.WriteString("    " + l)
		}
		b.WriteString("\n")
	}
	if more > 0 {
		fmt.Fprintf(&b, "    … (%d more %s)\n", more, lineWord(more))
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
func (c conversation) missingReads(files []string) []toolCall {
	var missing []toolCall
	for _, f := range files {
		if _, ok := c.resultFor("read_file", "path", f); !ok {
			missing = append(missing, toolCall{Name: "read_file", Args: args{{"path", f}}})
		}
	}
	return missing
}

// byPolicy reports whether a denial came from a security rule rather than
// from the person, so the tutor never blames the person for a rule.
func byPolicy(content string) bool {
	return strings.Contains(strings.ToLower(content), "security policy")
}

// declined says who refused a call: "You declined" or "The security policy
// denied", followed by what.
func declined(content, what string) string {
	if byPolicy(content) {
		return "The security policy denied " + what
	}
	return "You declined " + what
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

// lines says "1 line", "12 lines".
func lines(n int) string { return fmt.Sprintf("%d %s", n, lineWord(n)) }

// lineWord is "line" or "lines", as n wants.
func lineWord(n int) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}

// MCPToolLesson is the lesson in which the model calls a tool of an MCP
// server; without --mcp, glassbox attaches its demo server for it.
const MCPToolLesson = "mcp-tool"

// mcpGreeting is what the mcp-tool lesson sends the MCP tool.
const mcpGreeting = "hello from the glass box"

// mcpToolScript calls a tool of an attached MCP server. Its arguments are a
// guess ({"text": …}, what an echo tool takes); a tool that wants others
// fails, and the model says so.
func mcpToolScript(c conversation) reply {
	if len(c.mcpTools) == 0 {
		return finalReply("No MCP server is attached, so there is no MCP tool to call. Start glassbox with " +
			"--lesson mcp-tool or --mcp demo (the demo server bundled in glassbox), --mcp NAME=COMMAND (a stdio server) " +
			"or --mcp NAME=URL (streamable HTTP); its tools join as NAME__tool. (offline tutor)")
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
		return callReply("This tool comes from an MCP server; glassbox will send it a tools/call request over JSON-RPC.",
			toolCall{Name: tool, Args: args{{"text", mcpGreeting}}})
	}
	server, _, _ := strings.Cut(tool, "__")
	if r.IsError {
		return finalReply(fmt.Sprintf("The call to %s failed: %s\nThe MCP server %s answered with an error, which came back to me as the tool's result. (offline tutor)",
			tool, firstLine(r.Content), server))
	}
	return finalReply(fmt.Sprintf("The MCP server %s answered %s with:\n%s\nThe request and the answer are JSON-RPC frames (tools/call) beside this step. (offline tutor)",
		server, tool, quote(r.Content, 10)))
}
