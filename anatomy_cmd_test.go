package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `glassbox anatomy` over a session and over a cassette of the same lesson:
// every call's parts add up to its bytes, each token figure with its
// source; --step shows one call part by part; --json is one document.
func TestAnatomyCommand(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	sess, cas := filepath.Join(dir, "tour.jsonl"), filepath.Join(dir, "tour.cassette")
	if code, out, errb := invoke(t, "", "run", "--offline", "--lesson", "tour", "--provider", "gemini", "--session", sess, "--record", cas); code != exitOK {
		t.Fatalf("run: %d\n%s%s", code, out, errb)
	}
	for _, file := range []string{sess, cas} {
		code, out, errb := runIn(t, "", "anatomy", file, "--json")
		if code != exitOK {
			t.Fatalf("anatomy %s --json: %d %s", file, code, errb)
		}
		var rep struct {
			Calls []struct {
				Call, Step, Bytes int
				Kinds             []struct{ Bytes int }
				Estimated         struct{ Source, Rule string }
				Reported          *struct {
					N             int
					Source, Field string
					Rule          string
				}
				Since *struct{ Kept, Appended struct{ Parts int } } `json:"since_previous"`
			}
			Growth []struct{ Call, Bytes int }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(rep.Calls) != 3 || len(rep.Growth) != 3 || rep.Growth[2].Bytes <= rep.Growth[0].Bytes {
			t.Fatalf("%s: %d calls, growth %+v", file, len(rep.Calls), rep.Growth)
		}
		for _, c := range rep.Calls {
			sum := 0
			for _, k := range c.Kinds {
				sum += k.Bytes
			}
			if sum != c.Bytes || c.Estimated.Source != "estimated" || c.Estimated.Rule == "" {
				t.Fatalf("call %d: kinds add up to %d of %d bytes; estimate %+v", c.Call, sum, c.Bytes, c.Estimated)
			}
			if r := c.Reported; r == nil || r.Source != "reported" || r.Field != "usageMetadata.promptTokenCount" || !strings.Contains(r.Rule, "offline simulation") {
				t.Fatalf("call %d: reported %+v", c.Call, r)
			}
			if c.Call > 1 && (c.Since == nil || c.Since.Kept.Parts == 0 || c.Since.Appended.Parts != 2) {
				t.Fatalf("call %d: since %+v", c.Call, c.Since)
			}
			if (file == sess) != (c.Step > 0) {
				t.Fatalf("call %d: step %d", c.Call, c.Step)
			}
		}
	}
	code, out, errb := runIn(t, "", "anatomy", sess, "--step", "8")
	if code != exitOK || !strings.Contains(out, "call 2 · step 8 · gemini") || !strings.Contains(out, "list_files") ||
		!strings.Contains(out, "since the call before: 7 parts kept") || !strings.Contains(out, "Estimated tokens: about one token") {
		t.Fatalf("--step 8: %d\n%s%s", code, out, errb)
	}
	code, out, _ = runIn(t, "", "anatomy", sess, "--lang", "ja")
	if code != exitOK || !strings.Contains(out, "モデル呼び出し 3 回") || !strings.Contains(out, "推定トークン数") {
		t.Fatalf("--lang ja: %d\n%s", code, out)
	}
	garbage := filepath.Join(dir, "garbage.jsonl")
	if err := os.WriteFile(garbage, []byte("\x1b[2J{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"anatomy"}, {"anatomy", sess, "--step", "1"}, {"anatomy", filepath.Join(dir, "none")}, {"anatomy", garbage}, {"rosetta", garbage, "--step", "1"}} {
		if code, _, errb := runIn(t, "", bad...); code != exitUsage || errb == "" || strings.Contains(errb, "\x1b") {
			t.Errorf("%v: exit %d, %q", bad, code, errb)
		}
	}
}

// `glassbox rosetta` lays a step's conversation out in all four dialects.
func TestRosettaCommand(t *testing.T) {
	isolate(t)
	sess := filepath.Join(t.TempDir(), "tour.jsonl")
	if code, out, errb := invoke(t, "", "run", "--offline", "--lesson", "tour", "--provider", "llama", "--session", sess); code != exitOK {
		t.Fatalf("run: %d\n%s%s", code, out, errb)
	}
	code, out, errb := runIn(t, "", "rosetta", sess, "--step", "13")
	if code != exitOK {
		t.Fatalf("rosetta: %d %s", code, errb)
	}
	for _, want := range []string{"## system prompt", "## tool declarations", "## message 2: the model's tool call", "## message 3: the tool result", "## message 6: the model's answer",
		"### Gemini · native function calling", "### Llama · JSON-mode prompting", "\"functionResponse\"", "\"tool_call_id\"", "\"tool_name\":\"list_files\"", "tool_result",
		"JSON mode has no tool field"} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	code, out, _ = runIn(t, "", "rosetta", sess, "--step", "13", "--format", "html", "--lang", "ja")
	if code != exitOK || !strings.Contains(out, "<html lang=\"ja\">") || !strings.Contains(out, "JSON モードにはツールのフィールドがありません") || strings.Contains(out, "<script") {
		t.Fatalf("html: %d\n%.400s", code, out)
	}
	for _, bad := range [][]string{{"rosetta", sess}, {"rosetta", sess, "--step", "99"}, {"rosetta", sess, "--step", "3", "--format", "pdf"}} {
		if code, _, errb := runIn(t, "", bad...); code != exitUsage || errb == "" {
			t.Errorf("%v: exit %d, %q", bad, code, errb)
		}
	}
}

// `glassbox run --json` gives every model call's record its anatomy, on
// every dialect: the kinds add up to the request's bytes, the tokens say
// where they come from, and each call after the first says what it kept.
func TestRunJSONCarriesAnatomy(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			isolate(t)
			code, out, errb := invoke(t, "", append([]string{"run", "--json", "--offline", "--lesson", "tour"}, d.args...)...)
			if code != exitOK {
				t.Fatalf("%d %s", code, errb)
			}
			calls := 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var rec struct {
					LLM *struct {
						Anatomy *struct {
							Bytes int
							Kinds []struct {
								Kind  string
								Bytes int
							}
							Parts     []any
							Estimated struct {
								N      int
								Source string
							}
							Reported *struct{ Source, Field string }
							Since    *struct{ Kept struct{ Parts int } } `json:"since_previous"`
						}
					}
				}
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatal(err)
				}
				if rec.LLM == nil {
					continue
				}
				calls++
				a := rec.LLM.Anatomy
				if a == nil {
					t.Fatalf("call %d has no anatomy: %s", calls, line)
				}
				sum := 0
				for _, k := range a.Kinds {
					sum += k.Bytes
				}
				if sum != a.Bytes || a.Parts != nil || a.Estimated.Source != "estimated" || a.Reported == nil || a.Reported.Source != "reported" || a.Reported.Field == "" {
					t.Fatalf("call %d: %s", calls, line)
				}
				if (calls > 1) != (a.Since != nil && a.Since.Kept.Parts > 0) {
					t.Fatalf("call %d: since %+v", calls, a.Since)
				}
			}
			if calls != 3 {
				t.Fatalf("%d calls", calls)
			}
		})
	}
}

// A session of compare mode holds two runs: `--run NAME` picks the one the
// anatomy and Rosetta commands read (by default the first), and a name the
// session does not have is a usage mistake that lists the runs it has.
func TestAnatomyAndRosettaTakeTheRun(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	sess, single := filepath.Join(dir, "compare.jsonl"), filepath.Join(dir, "single.jsonl")
	if code, out, errb := invoke(t, "", "run", "--offline", "--compare", "--lesson", "tour", "--session", sess); code != exitOK {
		t.Fatalf("run --compare: %d\n%s%s", code, out, errb)
	}
	families := map[string]string{}
	for _, run := range []string{"", "gemini", "llama"} {
		args := []string{"anatomy", sess, "--json"}
		if run != "" {
			args = append(args, "--run", run)
		}
		code, out, errb := runIn(t, "", args...)
		if code != exitOK {
			t.Fatalf("%v: %d %s", args, code, errb)
		}
		var rep struct {
			Run   string
			Calls []struct{ Family, Dialect string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Calls) != 3 {
			t.Fatalf("%v: %v, %d calls\n%s", args, err, len(rep.Calls), out)
		}
		if rep.Run == "" {
			t.Fatalf("%v: the report does not name the run it read", args)
		}
		families[run] = rep.Calls[0].Family + "/" + rep.Calls[0].Dialect
	}
	if families[""] != families["gemini"] || families["gemini"] != "gemini/gemini" || families["llama"] != "ollama/llama" {
		t.Fatalf("the runs read: %v", families)
	}
	code, out, errb := runIn(t, "", "anatomy", sess, "--run", "llama", "--step", "8")
	if code != exitOK || !strings.Contains(out, "run llama") || !strings.Contains(out, "step 8 · llama") {
		t.Fatalf("anatomy --run llama --step 8: %d\n%s%s", code, out, errb)
	}
	code, out, errb = runIn(t, "", "rosetta", sess, "--run", "llama", "--step", "13")
	if code != exitOK || !strings.Contains(out, "run llama, step 13") || !strings.Contains(out, "## message 6: the model's answer") {
		t.Fatalf("rosetta --run llama: %d\n%.600s%s", code, out, errb)
	}
	code, _, errb = runIn(t, "", "anatomy", sess, "--run", "openai")
	if code != exitUsage || !strings.Contains(errb, "its runs are gemini, llama") {
		t.Fatalf("--run openai: %d %q", code, errb)
	}
	if code, out, errb := invoke(t, "", "run", "--offline", "--lesson", "tour", "--session", single); code != exitOK {
		t.Fatalf("run: %d\n%s%s", code, out, errb)
	}
	if code, _, errb := runIn(t, "", "rosetta", single, "--step", "3", "--run", "gemini"); code != exitUsage || !strings.Contains(errb, "for a session of compare mode") {
		t.Fatalf("--run on a single run: %d %q", code, errb)
	}
}
