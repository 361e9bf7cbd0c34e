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
td.n { text-align: right; font-variant-numeric: tabular-nums; } .share { display: inline-block; height: .7em; background: #6c5ce7; }
.breaks { color: #b3261e; font-weight: 600; } svg.growth { display: block; margin: .5rem 0 1rem; } svg.growth text { font: 11px system-ui, sans-serif; fill: #444; }
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
{{- with .Growth}}
<h3>{{$.L.GrowthHead}}</h3>
{{- with .Chart}}
<svg class="growth" xmlns="http://www.w3.org/2000/svg" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="{{$.L.GrowthHead}}">
<line x1="50" y1="{{.Base}}" x2="{{.W}}" y2="{{.Base}}" stroke="#999"/>
<text x="46" y="24" text-anchor="end">{{.Max}}</text>
<text x="46" y="{{.Base}}" text-anchor="end">0</text>
{{- $base := .Base}}
{{- range .Bars}}
<rect x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}" fill="#6c5ce7"><title>{{.Title}}</title></rect>{{if .Label}}<text x="{{printf "%.1f" .X}}" y="{{$base}}" dy="14">{{.Label}}</text>{{end}}
{{- end}}
</svg>
{{- end}}
<table>
<tr>{{range $.L.GrowthColumns}}<th>{{.}}</th>{{end}}</tr>
{{- range .Rows}}
<tr><td class="n">{{.Call}}</td><td class="n">{{.Step}}</td><td class="n">{{.Bytes}}</td><td class="n">{{.Estimated}}</td><td class="n">{{.Reported}}</td><td class="n">{{.Kept}}</td><td class="n">{{.Appended}}</td><td>{{if eq .Breaks "–"}}–{{else}}<code>{{.Breaks}}</code>{{end}}</td></tr>
{{- end}}
</table>
<p>{{.Sum}}</p>
{{- end}}
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
{{- with .Anatomy}}
<h4>{{.Head}}</h4>
{{- if .Unread}}
<p><code>{{.Unread}}</code></p>
{{- else}}
<p><code>{{.About}}</code></p>
<p>{{$.L.KindsHead}}:</p>
<table>
<tr>{{range $.L.KindColumns}}<th>{{.}}</th>{{end}}</tr>
{{- range .Kinds}}
<tr><td><code>{{.Kind}}</code></td><td class="n">{{.Parts}}</td><td class="n">{{.Bytes}}</td><td class="n">{{.Tokens}}</td><td><span class="share" style="width: {{.Share}}%"></span> {{.Share}} %</td></tr>
{{- end}}
</table>
<p>{{$.L.TokensHead}}:</p>
<table>
<tr>{{range $.L.TokenColumns}}<th>{{.}}</th>{{end}}</tr>
{{- range .Tokens}}
<tr><td>{{.Label}}</td><td class="n">{{.N}}</td><td>{{.Source}}</td></tr>
{{- end}}
</table>
<p{{if .Breaks}} class="breaks"{{end}}>{{.Since}}</p>
<details><summary>{{$.L.PartsHead}}</summary>
<table>
<tr>{{range $.L.PartColumns}}<th>{{.}}</th>{{end}}</tr>
{{- range .Parts}}
<tr><td><code>{{.Kind}}</code></td><td><code>{{.Label}}</code></td><td class="n">{{.Bytes}}</td><td class="n">{{.Tokens}}</td></tr>
{{- end}}
</table>
</details>
{{- end}}
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
