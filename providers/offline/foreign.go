package offline

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
)

// An agent glassbox does not run (Gemini CLI, opencode, … behind glassbox
// tap --upstream offline) declares its own tools: list_directory with a
// dir_path, read with an absolute filePath, bash with a command. The tutor
// thinks in glassbox's tools; roles carries its calls over to the tools the
// agent declared, and the agent's calls and results back, by what each tool
// is for: listing a folder, reading, writing, running a command. A request
// that declares glassbox's own tools is read as it is.

// role is what a tool is for, named by glassbox's own tool for it.
type role string

const (
	roleList  role = "list_files"
	roleRead  role = "read_file"
	roleWrite role = "write_file"
	roleRun   role = "execute_command"
)

// theRoles are the roles in the order the tutor names them.
var theRoles = []role{roleList, roleRead, roleWrite, roleRun}

// roleArgs are each role's arguments, as glassbox's tool names them.
var roleArgs = map[role][]string{
	roleList: {"path"}, roleRead: {"path"}, roleWrite: {"path", "content"}, roleRun: {"command"},
}

// DeclaredTool is one tool a request declares: its name and its
// parameters' names with their descriptions (ReadDeclared).
type DeclaredTool struct {
	name     string
	params   map[string]string
	required []string
}

// ReadDeclared reads a tool's name and its parameters' JSON Schema, as an
// emulator finds them in a request.
func ReadDeclared(name string, schema json.RawMessage) DeclaredTool {
	d := DeclaredTool{name: name, params: map[string]string{}}
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) == nil {
		for k, v := range s.Properties {
			d.params[k] = v.Description
		}
		d.required = s.Required
	}
	return d
}

// binding is the declared tool a role's calls go to, and how glassbox's
// arguments become its arguments.
type binding struct {
	tool string
	// keys maps glassbox's argument names to the tool's.
	keys map[string]string
	// fixed are arguments the tool needs that glassbox has none for
	// (a glob tool listing a folder: "pattern": "*").
	fixed Args
	// absolute: the tool wants absolute paths (its description says so),
	// made from the agent's working directory.
	absolute bool
	// via says the role goes through another tool: a listing run as
	// "ls", a file read with "cat" (the command is made from the path).
	via role
}

// roles are the bindings of one request's declared tools. The zero value
// reads every call as it is (glassbox's own tools, or no tools).
type roles struct {
	bound    map[role]binding
	declared []string // every tool's name, in order
	// workdir is the agent's working directory, when it says it (its
	// system prompt, its first message): absolute paths are made from it.
	workdir string
}

// foreign says the request's tools are not glassbox's: calls are carried
// over by role.
func (r roles) foreign() bool { return r.bound != nil }

// Names and argument names agents give each role's tool, most likely
// first; a tool of glassbox's own name and arguments is always first.
var (
	listNames  = regexp.MustCompile(`(?i)^(list_directory|list_dir|listdir|list_files|ls|list|LS)$`)
	readNames  = regexp.MustCompile(`(?i)^(read_file|read|readfile|view|cat|open_file|read_text_file)$`)
	writeNames = regexp.MustCompile(`(?i)^(write_file|write|writefile|create_file|write_text_file)$`)
	runNames   = regexp.MustCompile(`(?i)^(run_shell_command|bash|shell|execute_command|exec|run_command|terminal|run|execute|sh)$`)
	globNames  = regexp.MustCompile(`(?i)^(glob|find_files)$`)
	pathKeys   = []string{"path", "file_path", "filePath", "dir_path", "absolute_path", "directory", "dir", "file", "filename", "target_file"}
	textKeys   = []string{"content", "contents", "text", "file_text", "data"}
	cmdKeys    = []string{"command", "cmd", "script"}
)

// pickTool is the first of tools whose name re matches and which has a
// parameter for each of keys (any one name of each list), with those
// parameters' names.
func pickTool(tools []DeclaredTool, re *regexp.Regexp, keys ...[]string) (DeclaredTool, []string, bool) {
	for _, t := range tools {
		if !re.MatchString(t.name) {
			continue
		}
		var found []string
		for _, ks := range keys {
			k := firstKey(t, ks)
			if k == "" {
				break
			}
			found = append(found, k)
		}
		if len(found) == len(keys) {
			return t, found, true
		}
	}
	return DeclaredTool{}, nil, false
}

// bindRoles finds each role's tool among those declared. It returns the
// zero roles when the request declares glassbox's own tools.
func bindRoles(tools []DeclaredTool) roles {
	r := roles{}
	for _, t := range tools {
		r.declared = append(r.declared, t.name)
	}
	if len(tools) == 0 || ownTools(tools) {
		return r
	}
	r.bound = map[role]binding{}
	pick := func(re *regexp.Regexp, keys ...[]string) (DeclaredTool, []string, bool) {
		return pickTool(tools, re, keys...)
	}
	if t, k, ok := pick(listNames, pathKeys); ok {
		r.bound[roleList] = binding{tool: t.name, keys: map[string]string{"path": k[0]}, absolute: wantsAbsolute(t, k[0])}
	} else if t, k, ok := pick(globNames, []string{"pattern"}); ok {
		// A glob of "*" lists the folder it searches: the workspace when
		// no path is given, which is how the tutor lists it.
		r.bound[roleList] = binding{tool: t.name, keys: map[string]string{}, fixed: Args{{k[0], "*"}}}
	}
	if t, k, ok := pick(readNames, pathKeys); ok {
		r.bound[roleRead] = binding{tool: t.name, keys: map[string]string{"path": k[0]}, absolute: wantsAbsolute(t, k[0])}
	}
	if t, k, ok := pick(writeNames, pathKeys, textKeys); ok {
		r.bound[roleWrite] = binding{tool: t.name, keys: map[string]string{"path": k[0], "content": k[1]}, absolute: wantsAbsolute(t, k[0])}
	}
	if t, k, ok := pick(runNames, cmdKeys); ok {
		r.bound[roleRun] = binding{tool: t.name, keys: map[string]string{"command": k[0]}}
		if _, ok := r.bound[roleList]; !ok {
			r.bound[roleList] = binding{via: roleRun}
		}
		if _, ok := r.bound[roleRead]; !ok {
			r.bound[roleRead] = binding{via: roleRun}
		}
	}
	return r
}

// ownTools says the request declares glassbox's own tools, with their
// arguments: it is read as it is.
func ownTools(tools []DeclaredTool) bool {
	for _, t := range tools {
		if t.name == string(roleList) || t.name == string(roleRun) {
			_, ok := t.params[roleArgs[role(t.name)][0]]
			return ok || len(t.params) == 0
		}
	}
	return false
}

// firstKey is the first of keys the tool has as a parameter.
func firstKey(t DeclaredTool, keys []string) string {
	for _, k := range keys {
		if _, ok := t.params[k]; ok {
			return k
		}
	}
	return ""
}

// wantsAbsolute says the tool's description of its path asks for an
// absolute one ("The absolute path to the file to read").
func wantsAbsolute(t DeclaredTool, key string) bool {
	return strings.Contains(strings.ToLower(t.params[key]), "absolute") || key == "absolute_path"
}

// Where agents say their working directory: opencode's "Working
// directory: /p", Gemini CLI's "Workspace Directories:** - /p", "I'm
// currently working in the directory: /p".
var workdirRE = regexp.MustCompile(`(?i)(?:working directory:\s*|working in the directory:\s*|workspace directories:\**\s*\n\s*-\s*)(/[^\s<>"']*)`)

// workdirIn is the working directory text says, or "".
func workdirIn(text string) string {
	if m := workdirRE.FindStringSubmatch(text); m != nil {
		return strings.TrimRight(m[1], "/.,;:")
	}
	return ""
}

// inward reads the Conversation in glassbox's tools: each call to a bound
// tool, and its result, become the role's tool with glassbox's arguments
// (paths relative to the working directory again).
func (r roles) inward(c Conversation) Conversation {
	out := c
	out.steps = make([]Turn, len(c.steps))
	out.tally = tally{}
	calls := map[*ToolCall]*ToolCall{}
	for i, it := range c.steps {
		if it.Kind == TurnAssistant && len(it.Calls) > 0 {
			it.Calls = slices.Clone(it.Calls)
			for k := range it.Calls {
				calls[&c.steps[i].Calls[k]] = &it.Calls[k]
				it.Calls[k] = r.inCall(it.Calls[k])
			}
		}
		if it.Kind == TurnResult {
			if it.Result.Call != nil {
				if mine, ok := calls[it.Result.Call]; ok {
					it.Result.Call = mine
				} else {
					call := r.inCall(*it.Result.Call)
					it.Result.Call = &call
				}
				it.Result.Name = it.Result.Call.Name
			} else {
				it.Result.Name = r.inCall(ToolCall{Name: it.Result.Name}).Name
			}
		}
		out.steps[i] = it
		out.tally.add(it)
	}
	return out
}

// inCall is an agent's call as the role's glassbox call (unchanged when
// its tool is bound to no role).
func (r roles) inCall(c ToolCall) ToolCall {
	for _, ro := range theRoles {
		b, ok := r.bound[ro]
		if ok && b.via == "" && b.tool == c.Name && ro != roleRun {
			return r.asRole(ro, b, c)
		}
	}
	if b, ok := r.bound[roleRun]; ok && b.tool == c.Name {
		return r.throughShell(b, c)
	}
	return c
}

// asRole is call c of the agent's tool bound to role ro, with its
// arguments named as the role's glassbox tool names them.
func (r roles) asRole(ro role, b binding, c ToolCall) ToolCall {
	out := ToolCall{ID: c.ID, Name: string(ro)}
	for _, k := range roleArgs[ro] {
		agentKey, ok := b.keys[k]
		if !ok {
			continue
		}
		v := c.Args.str(agentKey)
		if k == "path" {
			v = r.relative(v)
		}
		out.Args = append(out.Args, Arg{k, v})
	}
	if ro == roleList && out.Args.str("path") == "" {
		out.Args = Args{{"path", "."}}
	}
	return out
}

// throughShell is call c of the agent's shell tool (bound b): a listing
// or a read the tutor made through the shell, or a command run.
func (r roles) throughShell(b binding, c ToolCall) ToolCall {
	cmd := c.Args.str(b.keys["command"])
	switch {
	case (cmd == "ls" || strings.HasPrefix(cmd, "ls ")) && r.bound[roleList].via == roleRun:
		return ToolCall{ID: c.ID, Name: string(roleList), Args: Args{{"path", r.relative(strings.TrimSpace(strings.TrimPrefix(cmd, "ls")))}}}
	case strings.HasPrefix(cmd, "cat ") && r.bound[roleRead].via == roleRun:
		return ToolCall{ID: c.ID, Name: string(roleRead), Args: Args{{"path", r.relative(strings.TrimPrefix(cmd, "cat "))}}}
	}
	return ToolCall{ID: c.ID, Name: string(roleRun), Args: Args{{"command", cmd}}}
}

// relative is a path without the working directory before it ("." for
// the directory itself).
func (r roles) relative(p string) string {
	if p == "" {
		return "."
	}
	if r.workdir == "" || !path.IsAbs(p) {
		return p
	}
	if p == r.workdir {
		return "."
	}
	if rest, ok := strings.CutPrefix(p, r.workdir+"/"); ok {
		return rest
	}
	return p
}

// absolute is a workspace path from the working directory, when it is
// known.
func (r roles) absolute(p string) string {
	if r.workdir == "" || path.IsAbs(p) {
		return p
	}
	return path.Join(r.workdir, p)
}

// outward carries the tutor's reply over to the agent's tools. A call whose
// role no declared tool plays ends the turn with a text that says so.
func (r roles) outward(rep Reply, l language) Reply {
	out := rep
	out.Calls = nil
	out.Text = r.named(rep.Text)
	for _, c := range rep.Calls {
		call, ok := r.outCall(c)
		if !ok {
			return Reply{Thought: answerThought(l), Text: r.unmapped(c, l)}
		}
		out.Calls = append(out.Calls, call)
	}
	return out
}

// named says the tutor's words with the agent's tool names: "what
// list_directory returned", not glassbox's list_files.
func (r roles) named(text string) string {
	for _, ro := range theRoles {
		b, ok := r.bound[ro]
		if b.via != "" {
			b, ok = r.bound[b.via]
		}
		if ok && b.tool != "" {
			text = strings.ReplaceAll(text, string(ro), b.tool)
		}
	}
	return text
}

// outCall is a glassbox call as a call to the agent's tool for its role.
func (r roles) outCall(c ToolCall) (ToolCall, bool) {
	b, ok := r.bound[role(c.Name)]
	if !ok {
		// Not one of the four roles (an MCP tool, ask_user): as it is,
		// when the agent declares it.
		return c, slices.Contains(r.declared, c.Name)
	}
	if b.via == roleRun {
		cmd := "ls"
		if p := c.Args.str("path"); role(c.Name) == roleRead {
			cmd = "cat " + p
		} else if p != "" && p != "." {
			cmd = "ls " + p
		}
		return r.outCall(ToolCall{ID: c.ID, Name: string(roleRun), Args: Args{{"command", cmd}}})
	}
	out := ToolCall{ID: c.ID, Name: b.tool}
	for _, k := range roleArgs[role(c.Name)] {
		agentKey, ok := b.keys[k]
		if !ok {
			continue
		}
		v := c.Args.str(k)
		if k == "path" && b.absolute {
			v = r.absolute(v)
		}
		out.Args = append(out.Args, Arg{agentKey, v})
	}
	out.Args = append(out.Args, b.fixed...)
	return out, true
}

// unmapped says why the tutor stops: what it would do, and that no tool
// the agent declared does it.
func (r roles) unmapped(c ToolCall, l language) string {
	what := map[role][2]string{
		roleList:  {"list the folder", "フォルダーを一覧する"},
		roleRead:  {"read " + c.Args.str("path"), c.Args.str("path") + " を読む"},
		roleWrite: {"write " + c.Args.str("path"), c.Args.str("path") + " を書く"},
		roleRun:   {"run `" + c.Args.str("command") + "`", "`" + c.Args.str("command") + "` を実行する"},
	}[role(c.Name)]
	if what[0] == "" {
		what = [2]string{"call " + c.Name, c.Name + " を呼び出す"}
	}
	declared := strings.Join(r.declared, ", ")
	return l.sayf("(offline tutor) I would %s now, but none of the tools this agent declared does that (it declared: %s). "+
		"glassbox's offline tutor drives an agent's tools by what they are for — list a folder, read a file, write a file, run a command — "+
		"and could not tell which of these does it.",
		"(オフラインのチューター) ここで%sところですが、このエージェントが宣言したツール (%s) にはそれをするものがありません。"+
			"glassbox のオフラインのチューターは、フォルダーの一覧・ファイルを読む・書く・コマンドを実行する、という役割でエージェントのツールを使いますが、"+
			"どれがその役割のツールか見分けられませんでした。", l.say(what[0], what[1]), declared)
}
