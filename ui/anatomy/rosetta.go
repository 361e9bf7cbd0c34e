package anatomy

import (
	"context"
	"flag"
	"fmt"
	"html/template"
	"io"
	"os"
	"strings"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/rosetta"
	"github.com/glassbox-dev/glassbox/tools"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

// RosettaMain is `glassbox rosetta SESSION --step N [--format md|html]`.
func RosettaMain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	l := lang.OfArgs(args, os.Getenv)
	fs := flag.NewFlagSet("glassbox rosetta", flag.ContinueOnError)
	fs.SetOutput(stderr)
	step := fs.Int("step", 0, l.T("the step whose conversation to show, counted from 1 as in 'glassbox sessions'"))
	format := fs.String("format", "md", l.T("md (Markdown) or html (one self-contained file)"))
	run := fs.String("run", "", l.T("in a session of compare mode, the run to read, named as --compare names it (default: the first)"))
	langFlag := fs.String("lang", "", l.T("the language of the page's headings and labels: en or ja (default: from LC_ALL, LC_MESSAGES or LANG); what the session holds is shown as it is"))
	fs.Usage = func() {
		fmt.Fprintln(stderr, l.T("Usage: glassbox rosetta SESSION --step N [--run NAME] [--format md|html]\n\nThe conversation as it stood at step N, as Gemini, OpenAI chat completions, Ollama's native tools and Llama's JSON mode would each send it, built by glassbox's own providers and laid side by side, part by part.\nSESSION is an id (see 'glassbox sessions') or a session file.\n\nFlags:"))
		fs.PrintDefaults()
	}
	target, err := parse(fs, args, l)
	if err != nil {
		return err
	}
	if l, err = lang.Choose(*langFlag, os.Getenv); err != nil {
		return fmt.Errorf("%w: --lang: %w", agentrun.ErrUsage, err)
	}
	if *format != "md" && *format != "html" {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.F("--format %q: use md or html", *format))
	}
	if *step < 1 {
		return fmt.Errorf("%w: %s", agentrun.ErrUsage, l.T("--step N is needed: the step whose conversation to show, counted from 1"))
	}
	rec, err := load(target, *run, os.Getenv, true)
	if err != nil {
		return err
	}
	state, err := rec.state(*step)
	if err != nil {
		return err
	}
	tab, err := rosetta.Build(ctx, state)
	if err != nil {
		return err
	}
	page := layout(l, rec, *step, tab)
	if *format == "html" {
		return htmlPage.Execute(stdout, page)
	}
	_, err = io.WriteString(stdout, page.markdown())
	return err
}

// state is the conversation as it stood after step n: the messages, the
// system prompt the run's model calls carried (read back from the last
// one up to the step) and glassbox's tools.
func (r *recording) state(n int) (providers.Request, error) {
	msgs, err := r.conversation(n)
	if err != nil {
		return providers.Request{}, err
	}
	req := providers.Request{Messages: msgs, Tools: tools.Default(nil, nil, 0).Specs(), System: loop.DefaultSystemPrompt}
	for _, c := range r.Calls {
		if c.Step > n {
			break
		}
		if system, ok := SystemOf(c.X); ok {
			req.System = system
		}
	}
	if len(msgs) == 0 {
		return req, fmt.Errorf("%w: %w", agentrun.ErrUsage, sentence.Errorf("step %d: the conversation is still empty", n))
	}
	return req, nil
}

// SystemOf is the system prompt a model call's request carried, as the
// loop wrote it: in JSON mode without the tools' paragraphs the provider
// adds to it. ok is false when no dialect reads the request or it has no
// system prompt.
func SystemOf(x providers.Exchange) (string, bool) {
	codec, _, ok := backend.Wire().Detect(x.Method, x.URL)
	if !ok {
		return "", false
	}
	sent, err := codec.DecodeRequest(x.URL, x.RequestBody)
	if err != nil || sent.System == "" {
		return "", false
	}
	system, _, _ := strings.Cut(sent.System, "\n\n## Tools\n")
	return system, true
}

// page is a Rosetta table worded for a person.
type page struct {
	Lang, Title, Note string
	Headers           []string
	Rows              []pageRow
}

type pageRow struct {
	Title, Caption string
	Cells          []pageCell
}

type pageCell struct {
	Text string
	Lost []string
}

func layout(l lang.Lang, rec *recording, step int, tab *rosetta.Table) page {
	title := l.F("One turn in every dialect: %s, step %d", loop.Printable(rec.Path), step)
	if rec.Run != "" {
		title = l.F("One turn in every dialect: %s, run %s, step %d", loop.Printable(rec.Path), loop.Printable(rec.Run), step)
	}
	p := page{Lang: l.String(), Title: title,
		Note: l.T("Each request was built by glassbox's own provider for that dialect, through its SDK client, and read back part by part; nothing was sent.")}
	for _, c := range tab.Columns {
		h := l.Dyn(c.Label)
		if c.Error != "" {
			h += " — " + loop.Printable(c.Error)
		}
		p.Headers = append(p.Headers, h)
	}
	for _, r := range tab.Rows {
		title := RowTitle(l, r)
		pr := pageRow{Title: title, Caption: l.Dyn(r.Caption)}
		for _, c := range r.Cells {
			pc := pageCell{Text: loop.Printable(c.Text)}
			for _, lost := range c.Lost {
				pc.Lost = append(pc.Lost, l.Dyn(lost))
			}
			pr.Cells = append(pr.Cells, pc)
		}
		p.Rows = append(p.Rows, pr)
	}
	return p
}

// RowTitle names a Rosetta row for a person: "system prompt", "message
// 2: the model's tool call".
func RowTitle(l lang.Lang, r rosetta.Row) string {
	switch r.Kind {
	case rosetta.RowSystem:
		return l.T("system prompt")
	case rosetta.RowTools:
		return l.T("tool declarations")
	case rosetta.RowCall:
		return l.F("message %d: the model's tool call", r.Message+1)
	case rosetta.RowResult:
		return l.F("message %d: the tool result", r.Message+1)
	case rosetta.RowAnswer:
		return l.F("message %d: the model's answer", r.Message+1)
	}
	return l.F("message %d: the user's turn", r.Message+1)
}

func (p page) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", p.Title, p.Note)
	for _, r := range p.Rows {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", r.Title, r.Caption)
		for i, c := range r.Cells {
			fmt.Fprintf(&b, "\n### %s\n\n", p.Headers[i])
			fence := "```"
			for strings.Contains(c.Text, fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "%sjson\n%s\n%s\n", fence, c.Text, fence)
			for _, lost := range c.Lost {
				fmt.Fprintf(&b, "\n> %s\n", lost)
			}
		}
	}
	return b.String()
}

var htmlPage = template.Must(template.New("rosetta").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;table-layout:fixed;width:100%}
th,td{border:1px solid #ccc;padding:.4em;vertical-align:top}pre{white-space:pre-wrap;word-break:break-all;margin:0;font-size:.8em}
.caption{font-style:italic}.lost{color:#a00}</style></head><body>
<h1>{{.Title}}</h1><p>{{.Note}}</p>
<table><tr><th></th>{{range .Headers}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Title}}<p class="caption">{{.Caption}}</p></th>{{range .Cells}}<td><pre>{{.Text}}</pre>{{range .Lost}}<p class="lost">{{.}}</p>{{end}}</td>{{end}}</tr>
{{end}}</table></body></html>
`))
