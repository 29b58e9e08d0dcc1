package report

// The templates of the HTML pages (html.go). They use no script and load
// nothing: the page is one file.

const htmlStyle = `{{define "style"}}
:root { --fg: #1d1d1f; --muted: #6e6e73; --rule: #e3e3e8; --bar: #3b6fd8; --bucket: #9aa0a6;
  --up: #d64545; --down: #2e9e5b; --base: #b9c3d6; --head: #f5f5f7; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  margin: 24px auto; padding: 0 24px; max-width: 1280px; }
h1 { font-size: 20px; margin: 0 0 6px; }
h2 { font-size: 16px; margin: 30px 0 8px; }
p.meta, p.note { color: var(--muted); margin: 4px 0; }
p.summary { max-width: 900px; }
ul.warnings { color: #a05a00; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--rule); text-align: right; white-space: nowrap; }
th { background: var(--head); font-weight: 600; }
th:first-child, td:first-child { text-align: left; }
td.name { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
td.note { text-align: left; color: var(--muted); }
td.bars { width: 320px; padding-top: 0; padding-bottom: 0; }
.bar { height: 12px; background: var(--bar); border-radius: 2px; min-width: 1px; }
tr.bucket td, tr.bucket-change td, tr.more td { color: var(--muted); }
tr.bucket .bar { background: var(--bucket); }
.bar.up { background: var(--up); }
.bar.down { background: var(--down); }
.bar.base { background: var(--base); height: 7px; margin: 2px 0 1px; }
.bar.new { height: 7px; margin: 1px 0 2px; }
.diverge { display: flex; width: 200px; }
td.pair { width: 100px; }
.tag { font: 11px system-ui, sans-serif; color: var(--muted); border: 1px solid var(--rule); border-radius: 3px; padding: 0 4px; margin-left: 6px; }
.diverge > div { width: 50%; display: flex; align-items: center; height: 16px; }
.diverge > .neg { justify-content: flex-end; border-right: 1px solid var(--muted); }
td.up { color: var(--up); }
td.down { color: var(--down); }
.uncertain { color: #a05a00; font-weight: 600; }
details { margin: 4px 0; }
summary { cursor: pointer; }
.legend span { display: inline-block; width: 12px; height: 8px; margin: 0 4px 0 12px; border-radius: 2px; }
{{end}}`

const reportPage = `{{define "report"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{template "style"}}</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{with .Data}}<p class="meta" id="totals"><b>{{human .TotalWasmInstructions}}</b> Wasm instructions ({{exact .TotalWasmInstructions}}),
{{human .Executions}} JS opcode executions, {{human .Calls}} JS calls, {{.Mode}} mode
· engine <b>{{engine .Engine}}</b>{{if .Engine.OpcodeNamesSource}} (opcode names: {{.Engine.OpcodeNamesSource}}){{end}}{{if .Module}} · module {{.Module}}{{end}}{{if .Trap}} · the guest trapped: {{.Trap}}{{else if failed .ExitCode}} · exit code {{.ExitCode}}{{end}}</p>{{end}}
{{if .Function}}<p class="meta">Only the JS functions named <b>{{.Function}}</b>; shares are of the whole profile.</p>{{end}}

<h2 id="opcodes">Cost per opcode</h2>
<table class="opcodes">
<thead><tr><th>opcode</th><th>executions</th><th>Wasm instructions</th><th>instr/exec</th><th>share</th><th>Wasm instructions</th></tr></thead>
<tbody>
{{range .Opcodes}}<tr class="opcode" data-name="{{.Name}}" data-opcode="{{.Opcode}}"><td class="name">{{.Name}}{{if .UncertainName}}<span class="uncertain" title="name uncertain">?</span>{{end}}</td><td title="{{exact .Executions}}">{{human .Executions}}</td><td title="{{exact .WasmInstructions}}">{{human .WasmInstructions}}</td><td>{{perExec .}}</td><td>{{pct .Share}}</td><td class="bars"><div class="bar" style="{{barWidth .WasmInstructions $.MaxOpcode}}"></div></td></tr>
{{end}}{{if .MoreOps}}<tr class="more"><td colspan="6">… {{.MoreOps}} more opcodes</td></tr>
{{end}}{{range .Data.Buckets}}<tr class="bucket" data-name="{{.Name}}"><td class="name">{{.Name}}</td><td></td><td title="{{exact .WasmInstructions}}">{{human .WasmInstructions}}</td><td></td><td>{{pct (share .WasmInstructions $.Data.TotalWasmInstructions)}}</td><td class="bars"><div class="bar" style="{{barWidth .WasmInstructions $.MaxOpcode}}"></div></td></tr>
{{end}}</tbody>
</table>

<h2 id="functions">JS functions</h2>
<table class="functions">
<thead><tr><th>function</th><th>calls</th><th>executions</th><th>self Wasm instructions</th><th>share</th>{{if eq .Data.Mode "sample"}}<th>cumulative</th>{{end}}<th>self Wasm instructions</th></tr></thead>
<tbody>
{{range .Functions}}<tr class="function" data-name="{{.Name}}"><td class="name">{{.Label}}</td><td title="{{exact .Calls}}">{{human .Calls}}</td><td title="{{exact .Executions}}">{{human .Executions}}</td><td title="{{exact .SelfWasmInstructions}}">{{human .SelfWasmInstructions}}</td><td>{{pct .Share}}</td>{{if eq $.Data.Mode "sample"}}<td title="{{exact .TotalWasmInstructions}}">{{human .TotalWasmInstructions}}</td>{{end}}<td class="bars"><div class="bar" style="{{barWidth .SelfWasmInstructions $.MaxFn}}"></div></td></tr>
{{end}}{{if .MoreFns}}<tr class="more"><td colspan="6">… {{.MoreFns}} more functions</td></tr>
{{end}}</tbody>
</table>

<h2 id="function-opcodes">Opcodes of each JS function</h2>
{{range $i, $f := .Functions}}<details class="function-opcodes" data-name="{{$f.Name}}"{{if eq $i 0}} open{{end}}>
<summary><span class="name">{{$f.Label}}</span>: {{human $f.SelfWasmInstructions}} Wasm instructions ({{pct $f.Share}}), {{calls $f.Calls}}</summary>
<table>
<thead><tr><th>opcode</th><th>executions</th><th>Wasm instructions</th><th>instr/exec</th><th>share</th><th>Wasm instructions</th></tr></thead>
<tbody>
{{range $f.Opcodes}}<tr class="function-opcode" data-function="{{$f.Name}}" data-name="{{.Name}}"><td class="name">{{.Name}}{{if .UncertainName}}<span class="uncertain" title="name uncertain">?</span>{{end}}</td><td title="{{exact .Executions}}">{{human .Executions}}</td><td title="{{exact .WasmInstructions}}">{{human .WasmInstructions}}</td><td>{{perExec .}}</td><td>{{pct .Share}}</td><td class="bars"><div class="bar" style="{{barWidth .WasmInstructions $.MaxOpcode}}"></div></td></tr>
{{end}}</tbody>
</table>
</details>
{{end}}

<h2 id="lines">Source lines</h2>
<table class="lines">
<thead><tr><th>line</th><th>function</th><th>executions</th><th>Wasm instructions</th><th>share</th><th>Wasm instructions</th></tr></thead>
<tbody>
{{range .Lines}}<tr class="line" data-line="{{lineLabel .}}"><td class="name">{{lineLabel .}}</td><td class="name">{{.Function}}</td><td title="{{exact .Executions}}">{{human .Executions}}</td><td title="{{exact .WasmInstructions}}">{{human .WasmInstructions}}</td><td>{{pct .Share}}</td><td class="bars"><div class="bar" style="{{barWidth .WasmInstructions $.MaxLine}}"></div></td></tr>
{{end}}{{if .MoreLines}}<tr class="more"><td colspan="6">… {{.MoreLines}} more lines</td></tr>
{{end}}</tbody>
</table>
{{if .Uncertain}}<p class="note"><span class="uncertain">?</span> name uncertain ({{.UncertainW}})</p>{{end}}
<p class="note">Written by jsprof. Counts are Wasm instructions executed (docs/instruction-counting.md); hover a number for its exact value.</p>
</body>
</html>
{{end}}`

const diffPage = `{{define "diff"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{template "style"}}</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{with .Diff}}<p class="meta">base: <b>{{engine .Base.Engine}}</b>{{if .Base.Profile}} ({{.Base.Profile}}{{if .Base.Module}}, {{.Base.Module}}{{end}}){{end}}, {{.Base.Mode}} mode{{if .Base.Engine.OpcodeNamesSource}}, opcode names: {{.Base.Engine.OpcodeNamesSource}}{{end}}</p>
<p class="meta">new: <b>{{engine .New.Engine}}</b>{{if .New.Profile}} ({{.New.Profile}}{{if .New.Module}}, {{.New.Module}}{{end}}){{end}}, {{.New.Mode}} mode{{if .New.Engine.OpcodeNamesSource}}, opcode names: {{.New.Engine.OpcodeNamesSource}}{{end}}</p>

<table id="totals">
<thead><tr><th></th><th>base</th><th>new</th><th>change</th><th></th></tr></thead>
<tbody>
<tr class="total" data-name="wasm_instructions"><td>Wasm instructions</td><td title="{{exact .Base.TotalWasmInstructions}}">{{human .Base.TotalWasmInstructions}}</td><td title="{{exact .New.TotalWasmInstructions}}">{{human .New.TotalWasmInstructions}}</td><td class="{{deltaClass .DeltaWasmInstructions}}" title="{{exactSigned .DeltaWasmInstructions}}">{{signed .DeltaWasmInstructions}}</td><td>{{changePct .Base.TotalWasmInstructions .New.TotalWasmInstructions}}</td></tr>
<tr class="total" data-name="opcode_executions"><td>JS opcode executions</td><td title="{{exact .Base.Executions}}">{{human .Base.Executions}}</td><td title="{{exact .New.Executions}}">{{human .New.Executions}}</td><td title="{{exactSigned .DeltaExecutions}}">{{signed .DeltaExecutions}}</td><td>{{changePct .Base.Executions .New.Executions}}</td></tr>
<tr class="total" data-name="calls"><td>JS calls</td><td>{{human .Base.Calls}}</td><td>{{human .New.Calls}}</td><td></td><td>{{changePct .Base.Calls .New.Calls}}</td></tr>
</tbody>
</table>
<p class="summary" id="summary">{{.Summary}}</p>
{{if .Warnings}}<ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{end}}

<h2 id="opcode-changes">Change per opcode</h2>
<p class="note legend">Opcodes aligned by name, largest change first. Change: <span style="background: var(--down)"></span>fewer Wasm instructions in new <span style="background: var(--up)"></span>more. Instructions: <span style="background: var(--base)"></span>base <span style="background: var(--bar)"></span>new.</p>
<table class="opcode-changes">
<thead><tr><th>opcode</th><th>base exec</th><th>new exec</th><th>base i/e</th><th>new i/e</th><th>base instr</th><th>new instr</th><th>change</th><th>change</th><th>base / new</th></tr></thead>
<tbody>
{{range .Opcodes}}<tr class="opcode-change" data-name="{{.Name}}" data-in="{{.Only}}"><td class="name">{{.Name}}{{if .Uncertain}}<span class="uncertain" title="name uncertain in one engine">?</span>{{end}}{{if .Only}}<span class="tag">{{onlyText .Only}}</span>{{end}}</td><td>{{sideExec .Base}}</td><td>{{sideExec .New}}</td><td>{{sidePerExec .Base}}</td><td>{{sidePerExec .New}}</td><td>{{sideInstr .Base}}</td><td>{{sideInstr .New}}</td><td class="{{deltaClass .DeltaWasmInstructions}}" title="{{exactSigned .DeltaWasmInstructions}}">{{signed .DeltaWasmInstructions}}</td><td class="bars"><div class="diverge"><div class="neg">{{if lt .DeltaWasmInstructions 0}}<div class="bar down" style="{{barWidth .DeltaWasmInstructions $.MaxDelta}}"></div>{{end}}</div><div class="pos">{{if gt .DeltaWasmInstructions 0}}<div class="bar up" style="{{barWidth .DeltaWasmInstructions $.MaxDelta}}"></div>{{end}}</div></div></td><td class="bars pair">{{with .Base}}<div class="bar base" style="{{barWidth .WasmInstructions $.MaxInstr}}"></div>{{else}}<div class="bar base" style="width: 0"></div>{{end}}{{with .New}}<div class="bar new" style="{{barWidth .WasmInstructions $.MaxInstr}}"></div>{{else}}<div class="bar new" style="width: 0"></div>{{end}}</td></tr>
{{end}}{{if .MoreOps}}<tr class="more"><td colspan="7">… {{.MoreOps}} more opcodes</td><td class="{{deltaClass .MoreOpsD}}" title="{{exactSigned .MoreOpsD}}">{{signed .MoreOpsD}}</td><td colspan="2"></td></tr>
{{end}}{{range .Diff.Buckets}}<tr class="bucket-change" data-name="{{.Name}}"><td class="name">{{.Name}}</td><td></td><td></td><td></td><td></td><td title="{{exact .BaseWasmInstructions}}">{{human .BaseWasmInstructions}}</td><td title="{{exact .NewWasmInstructions}}">{{human .NewWasmInstructions}}</td><td class="{{deltaClass .DeltaWasmInstructions}}" title="{{exactSigned .DeltaWasmInstructions}}">{{signed .DeltaWasmInstructions}}</td><td class="bars"><div class="diverge"><div class="neg">{{if lt .DeltaWasmInstructions 0}}<div class="bar down" style="{{barWidth .DeltaWasmInstructions $.MaxDelta}}"></div>{{end}}</div><div class="pos">{{if gt .DeltaWasmInstructions 0}}<div class="bar up" style="{{barWidth .DeltaWasmInstructions $.MaxDelta}}"></div>{{end}}</div></div></td><td></td><td class="note">{{changePct .BaseWasmInstructions .NewWasmInstructions}}</td></tr>
{{end}}</tbody>
</table>

<h2 id="function-changes">Change per JS function</h2>
<table class="function-changes">
<thead><tr><th>function</th><th>base calls</th><th>new calls</th><th>base self instr</th><th>new self instr</th><th>change</th><th>change</th><th></th></tr></thead>
<tbody>
{{range .Functions}}<tr class="function-change" data-name="{{.Name}}" data-in="{{.Only}}"><td class="name">{{.Label}}</td><td>{{fnCalls .Base}}</td><td>{{fnCalls .New}}</td><td>{{fnInstr .Base}}</td><td>{{fnInstr .New}}</td><td class="{{deltaClass .DeltaWasmInstructions}}" title="{{exactSigned .DeltaWasmInstructions}}">{{signed .DeltaWasmInstructions}}</td><td class="bars"><div class="diverge"><div class="neg">{{if lt .DeltaWasmInstructions 0}}<div class="bar down" style="{{barWidth .DeltaWasmInstructions $.MaxFn}}"></div>{{end}}</div><div class="pos">{{if gt .DeltaWasmInstructions 0}}<div class="bar up" style="{{barWidth .DeltaWasmInstructions $.MaxFn}}"></div>{{end}}</div></div></td><td class="note">{{if .Only}}{{onlyText .Only}}{{else}}{{changePct .Base.SelfWasmInstructions .New.SelfWasmInstructions}}{{end}}</td></tr>
{{end}}{{if .MoreFns}}<tr class="more"><td colspan="5">… {{.MoreFns}} more functions</td><td class="{{deltaClass .MoreFnsD}}" title="{{exactSigned .MoreFnsD}}">{{signed .MoreFnsD}}</td><td colspan="2"></td></tr>
{{end}}</tbody>
</table>
{{if .Uncertain}}<p class="note"><span class="uncertain">?</span> name uncertain in one engine, and so its alignment</p>{{end}}
<p class="note">Written by jsprof. Counts are Wasm instructions executed; hover a number for its exact value.</p>
</body>
</html>
{{end}}`
