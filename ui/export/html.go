package export

import (
	"bytes"
	"html/template"
)

// writeHTML draws p as one HTML file: inline CSS, no script, no external
// resource (the Content-Security-Policy forbids both, should anything slip
// through), and every piece of text escaped by html/template for where it
// stands.
func writeHTML(b *bytes.Buffer, p *page) error {
	return pageTemplate.Execute(b, p)
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; background: #fff; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; } h3 { font-size: 1.1rem; margin-top: 2rem; } h4 { font-size: 1rem; }
pre, code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
pre { background: #f5f5f7; padding: .6rem .8rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; border-radius: 4px; }
pre.diagram { white-space: pre; line-height: 1.2; background: #fbfbfd; border: 1px solid #ddd; }
pre.diagram mark { background: #e4dcff; color: inherit; font-weight: 700; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; } th, td { border: 1px solid #ccc; padding: .2rem .4rem; text-align: left; vertical-align: top; }
td code { overflow-wrap: anywhere; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; } dt { font-weight: 600; } dd { margin: 0; }
.verdict-ALLOW { color: #1e7b34; } .verdict-DENY { color: #b3261e; font-weight: 600; } .verdict-REQUIRE_USER_CONFIRMATION { color: #8a5a00; }
.role { font-weight: 600; margin-bottom: 0; }
@media print { pre { white-space: pre-wrap; } h3 { break-before: page; } }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<dl>
<dt>{{.L.Session}}</dt><dd><code>{{.Session}}</code></dd>
<dt>{{.L.Started}}</dt><dd>{{.Started}}</dd>
{{- if .Request}}
<dt>{{.L.FirstRequest}}</dt><dd>{{.Request}}</dd>
{{- end}}
<dt>{{.L.Health}}</dt><dd>{{.Health}}</dd>
</dl>
{{- range .Runs}}
<section>
<h2>{{$.L.Run}}{{if .Name}} <code>{{.Name}}</code>{{end}}</h2>
<p>{{.About}} · {{.Count}}</p>
{{- if $.Whole}}
<h3>{{$.L.Timeline}}</h3>
<table>
<tr>{{range $.L.TimelineHead}}<th>{{.}}</th>{{end}}</tr>
{{- range .Timeline}}
<tr><td>{{.Seq}}</td><td><code>{{.From}}</code></td><td><code>{{.Edge}}</code></td><td><code>{{.To}}</code></td><td>{{.Notes}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- range .Steps}}
<article>
<h3>{{$.L.Step}} {{.Seq}}: <code>{{.Arc}}</code></h3>
<p>{{$.L.Iteration}} {{.Iteration}} · {{.Time}}</p>
<pre class="diagram">{{with .Lit}}{{index . 0}}<mark>{{index . 1}}</mark>{{index . 2}}{{end}}</pre>
{{- range .Facts}}
{{- if .Block}}
<p>{{.Label}}:</p>
<pre>{{.Text}}</pre>
{{- else}}
<p>{{.Label}}: <code>{{.Text}}</code></p>
{{- end}}
{{- end}}
{{- if .Calls}}
<h4>{{$.L.CallsHead}}</h4>
<table>
<tr>{{range $.L.CallsColumns}}<th>{{.}}</th>{{end}}</tr>
{{- range .Calls}}
<tr><td><code>{{.Name}}</code></td><td><code>{{.Args}}</code></td><td class="verdict-{{.Verdict}}">{{.Verdict}}{{if .Approval}} → {{.Approval}}{{end}}</td><td>{{.Rule}}</td><td>{{.Reason}}</td><td>{{.Status}}</td><td>{{.Result}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- range $i, $x := .Payloads}}
<h4>{{$.L.Exchange}}: <code>{{$x.Title}}</code></h4>
<p>{{$x.Timing}}{{if $x.Redacted}} · {{$.L.Masked}}: {{$x.Redacted}}{{end}}</p>
<p>{{$.L.RequestHeaders}}:</p>
<pre>{{$x.RequestHeaders}}</pre>
<p>{{$.L.RequestBody}}:</p>
<pre>{{$x.RequestBody}}</pre>
{{- if $x.ResponseHeaders}}
<p>{{$.L.ResponseHeaders}}:</p>
<pre>{{$x.ResponseHeaders}}</pre>
{{- end}}
<p>{{$.L.ResponseBody}}:</p>
<pre>{{$x.ResponseBody}}</pre>
{{- end}}
</article>
{{- end}}
{{- if and (not $.Whole) (not .Steps)}}
<p>{{$.L.Ended}}</p>
{{- end}}
<h3>{{if $.Whole}}{{$.L.History}}{{else}}{{$.L.HistoryAsOf}}{{end}}</h3>
{{- if not .History}}
<p>{{$.L.Empty}}</p>
{{- end}}
{{- range .History}}
<p class="role">{{.Role}}</p>
<pre>{{.Text}}</pre>
{{- end}}
</section>
{{- end}}
</body>
</html>
`))
