package main

import (
	"slices"
	"strings"
	"testing"
)

// The docs' checks can fail: each catches what it is for, on a small
// made-up page or screen.

func TestGithubSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"10–22 · The loop, one transition at a time":        "1022--the-loop-one-transition-at-a-time",
		"`stop_reason` and the Raw payload pane":            "stop_reason-and-the-raw-payload-pane",
		"Language / 言語":                                     "language--言語",
		"同じ失敗が 2 回続いたら: 停止の規則":                              "同じ失敗が-2-回続いたら-停止の規則",
		"Gemini (`providers/gemini/errors.go`)":             "gemini-providersgeminierrorsgo",
		"[a tool from an MCP server](#x) and **more**":      "a-tool-from-an-mcp-server-and-more",
		"Follow-up exercise: a tool from an MCP server":     "follow-up-exercise-a-tool-from-an-mcp-server",
		"MCP segment: tools from elsewhere (15 minutes)":    "mcp-segment-tools-from-elsewhere-15-minutes",
		"Policy file (`--policy FILE`)":                     "policy-file---policy-file",
		"OpenAI 互換の chat completions":                       "openai-互換の-chat-completions",
		"The instructor's roster":                           "the-instructors-roster",
		"Under the kernel's sandbox":                        "under-the-kernels-sandbox",
		"Docs that cannot drift":                            "docs-that-cannot-drift",
		"What a chunk is: one record":                       "what-a-chunk-is-one-record",
		"Glassbox on the bus":                               "glassbox-on-the-bus",
		"Streaming and timing":                              "streaming-and-timing",
		"ストリーミングと時間":                                        "ストリーミングと時間",
		"Offline, live and replay":                          "offline-live-and-replay",
		"Room logistics":                                    "room-logistics",
		"A served workshop: one machine, learners over SSH": "a-served-workshop-one-machine-learners-over-ssh",
	} {
		if got := githubSlug(heading); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestDocLinkChecks(t *testing.T) {
	p := &page{path: "docs/x.md", lines: strings.Split("# X\n\n## Same\n\n## Same\n```\n## not a heading\n```", "\n")}
	p.fence = fences(p.lines)
	anchors := map[string]map[string]bool{"docs/x.md": p.anchors()}
	for target, ok := range map[string]bool{
		"#same": true, "#same-1": true, "#same-2": false, "#not-a-heading": false, "#x": true,
		"../README.md": true, "nope.md": false, "https://example.com/#y": true,
	} {
		if got := checkLink("docs/x.md", target, anchors) == ""; got != ok {
			t.Errorf("link %s: resolves %v, want %v (%s)", target, got, ok, checkLink("docs/x.md", target, anchors))
		}
	}
	if got := links(prose("see `[not](a link)` and [this](y.md#z)")); !slices.Equal(got, []string{"y.md#z"}) {
		t.Errorf("links read %v from a line with a link in a code span", got)
	}
}

func TestDocCommandLines(t *testing.T) {
	c := cli{subs: []string{"help", "run", "export", "mcp-serve"}, hidden: []string{"mcp-demo"}, flags: map[string]map[string]bool{
		"":          {"offline": false, "lesson": true, "mcp": true},
		"run":       {"offline": false, "lesson": true, "json": false, "mcp": true},
		"export":    {"step": true, "format": true},
		"mcp-serve": {"offline": false},
	}}
	for line, wantBad := range map[string]int{
		"go run . --offline --lesson tour":                         0,
		"go run . --bogus":                                         1,
		"go run . run --json --lesson --json":                      0, // --json is --lesson's value
		"glassbox sesions --stats":                                 1,
		"glassbox sesions":                                         1,
		"glassbox kept no copy of it":                              0, // a sentence, not a command
		"glassbox run: --policy x: unknown keys":                   0, // a message
		"glassbox export SESSION [--step N] [--format md|html]":    0,
		"glassbox export SESSION [--steps N]":                      1,
		`go run . run --mcp other="glassbox mcp-serve --offline"`:  0,
		`go run . run --mcp other="glassbox mcp-serve --offlne"`:   1,
		"printf 'y\\n' | go run . run --lesson write-file --yes":   1,
		"GEMINI_API_KEY=x go run . --offline # a comment --nope":   0,
		"$(go env GOPATH)/bin/glassbox mcp-serve --offline --json": 1,
	} {
		invs, bad := invocations(line, "x.md:1", c.subs, c.hidden)
		for _, inv := range invs {
			_, b := c.flagsOf(inv)
			bad = append(bad, b...)
		}
		if len(bad) != wantBad {
			t.Errorf("%s: %d complaints, want %d: %v", line, len(bad), wantBad, bad)
		}
	}
}

// A frame of two panes side by side, the left one wrapping its text.
const testFrame = `╭─ Left ───────╮╭─ Right ──────╮
│Workspace: /ho││58 lines, as  │
│me/alice/x    ││they arrived  │
│(kept with    ││TTFB 151ms ·  │
│the session)  ││total 2s      │
╰──────────────╯╰──────────────╯
 state WAITING  iter 3/10`

func TestQuotesOnAScreen(t *testing.T) {
	f := &frame{text: testFrame}
	for quote, want := range map[string]bool{
		"Workspace: /home/alice/x (kept with the session)": true,  // wrapped, mid-word too
		"Workspace: … (kept with the session)":             true,  // … is any text
		"58 lines, as they arrived":                        true,  //
		"8 lines, as they arrived":                         false, // a number is whole
		"TTFB 3ms":                                         true,  // a duration is any duration
		"iter 3/10":                                        true,  // a row outside the boxes
		"iter 3/1":                                         false, // a word is whole
		"x (kept with the session) 58 lines":               false, // not across two panes
	} {
		if got := f.holds(newScreenQuote(quote)); got != want {
			t.Errorf("%q on the screen: %v, want %v", quote, got, want)
		}
	}
}

func TestWholeScreens(t *testing.T) {
	rows := strings.Split(testFrame, "\n")
	same := strings.Split(strings.Replace(testFrame, "TTFB 151ms ·", "TTFB 1ms ·  ", 1), "\n")
	if _, diff := screenDiff(same, rows); diff != "" {
		t.Errorf("a duration of another width makes the screens differ: %s", diff)
	}
	other := strings.Split(strings.Replace(testFrame, "arrived", "arrives", 1), "\n")
	if _, diff := screenDiff(other, rows); !strings.Contains(diff, "box 2") {
		t.Errorf("a changed word in the right pane: %q", diff)
	}
	title := strings.Split(strings.Replace(testFrame, "─ Right ─", "─ Rite ──", 1), "\n")
	if line, diff := screenDiff(title, rows); line != 0 || !strings.Contains(diff, "row 1") {
		t.Errorf("a changed title: line %d, %q", line, diff)
	}
}

func TestMarkerScopes(t *testing.T) {
	p := &page{path: "x.md", lines: strings.Split(strings.Join([]string{
		"<!-- screen: a 120x34 -->", // 0
		"- `one` and",
		"  `two`",
		"<!-- screen: b 120x34 -->", // 3
		"- `three`",
		"<!-- end -->",
		"- `not quoted`",
		"",
		"<!-- output: glassbox version -->", // 8
		"<!-- screen: c 80x24 -->",
		"```",
		"line one",
		"…",
		"│ ... │",
		"line two",
		"```",
		"`after`",
	}, "\n"), "\n")}
	p.fence = fences(p.lines)
	var got []string
	for _, q := range p.markers() {
		var quotes []string
		for _, qt := range q.quotes {
			quotes = append(quotes, qt.text)
		}
		got = append(got, q.sources[0].arg+": "+strings.Join(quotes, ", "))
	}
	want := []string{"a 120x34: one, two", "b 120x34: three", "glassbox version: line one, line two"}
	if !slices.Equal(got, want) {
		t.Errorf("markers cover %q, want %q", got, want)
	}
}
