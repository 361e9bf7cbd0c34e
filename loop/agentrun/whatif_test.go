package agentrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
)

type noPerson struct{}

func (noPerson) Confirm(context.Context, loop.ConfirmRequest) (loop.Approval, error) {
	return loop.Deny, errors.New("no one to ask")
}
func (noPerson) Ask(context.Context, tools.Question) (string, error) { return "", errors.New("no one") }

// editorScript writes a shell script that edits the file it is given.
func editorScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// What-if with a scripted $EDITOR: the tool result the model is about to
// read is changed, and the changed context is what goes over the wire.
func TestWhatIfWithAScriptedEditor(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	c := Defaults(true)
	c.Offline = true
	r, err := Open(context.Background(), c, noPerson{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := r.Engine
	e.Submit(loop.Event{Source: "cli", Type: "user_input", Data: "list the files"})
	// To the second model call: the listing is in the context.
	for calls := 0; calls < 2; {
		tr, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if tr.To == loop.AwaitingLLMResponse {
			calls++
		}
	}
	env := map[string]string{}
	run := func(script string) (bool, error) {
		w, err := PrepareWhatIf(e)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		env["VISUAL"] = editorScript(t, script)
		cmd := EditorCommand(func(k string) string { return env[k] }, w.Path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("editor: %v %s", err, out)
		}
		return w.Apply()
	}
	if changed, err := run(`true`); changed || err != nil {
		t.Fatalf("an untouched file: changed %v, %v", changed, err)
	}
	if _, err := run(`echo '{"system": ""' > "$1"`); err == nil || !strings.Contains(err.Error(), "nothing was changed") || e.Edited() {
		t.Fatalf("a broken edit: %v (edited %v)", err, e.Edited())
	}
	if changed, err := run(`sed -i 's/old_log.txt"/what_if.txt"/' "$1"`); !changed || err != nil {
		t.Fatalf("the edit: changed %v, %v", changed, err)
	}
	tr, err := e.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Edited || len(tr.Exchanges) == 0 || !strings.Contains(string(tr.Exchanges[0].RequestBody), "what_if.txt") {
		t.Fatalf("the edited context was not sent: edited %v", tr.Edited)
	}
	if strings.Contains(string(tr.Exchanges[0].RequestBody), `notes/\nold_log.txt`) {
		t.Fatal("the original listing was sent too")
	}
}

func TestEditorCommand(t *testing.T) {
	env := map[string]string{"EDITOR": "nano", "VISUAL": "code -w"}
	get := func(k string) string { return env[k] }
	if got := EditorCommand(get, "/f").Args; strings.Join(got, " ") != "code -w /f" {
		t.Fatalf("VISUAL: %v", got)
	}
	delete(env, "VISUAL")
	if got := EditorCommand(get, "/f").Args; strings.Join(got, " ") != "nano /f" {
		t.Fatalf("EDITOR: %v", got)
	}
	delete(env, "EDITOR")
	if got := EditorCommand(get, "/f").Args; strings.Join(got, " ") != "vi /f" {
		t.Fatalf("default: %v", got)
	}
}
