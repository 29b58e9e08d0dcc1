package htmlview

// The templates of the HTML pages (html.go). They load nothing: the page
// is one file, its only script inline (flame_script.go), its data in it.

const htmlStyle = `{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{template "style"}}</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{end}}{{define "style"}}
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
.bar.native-bar { background: #b184e3; }
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
.k-j { background: #f3a04f; } .k-o { background: #7fa7ee; } .k-n { background: #b184e3; }
.k-w { background: #a9c8a1; } .k-b { background: #d5d6da; } .k-x { background: #ececef; color: #8a8a90; } .k-r { background: #e2e2e7; }
.hotspots { display: flex; gap: 10px; margin: 12px 0 6px; flex-wrap: wrap; }
.card { flex: 1 1 0; min-width: 200px; border: 1px solid var(--rule); border-left: 5px solid var(--bar); border-radius: 4px;
  padding: 6px 10px; color: inherit; text-decoration: none; overflow: hidden; }
.card.k-line { border-left-color: #e8590c; } .card.k-native { border-left-color: #8e44d0; }
.card.k-function { border-left-color: #f3a04f; } .card.k-opcode { border-left-color: #5b8def; }
.card .what { display: block; font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.card b { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 15px; }
.card .sub { display: block; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.card code { color: var(--fg); }
.flame-bar { display: flex; align-items: center; gap: 10px; margin: 4px 0; }
#flame-search { width: 260px; padding: 3px 6px; font: inherit; }
#flame-found { color: #b0125b; }
#flame-crumbs { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin: 4px 0; min-height: 16px; }
#flame-crumbs a { color: var(--bar); text-decoration: none; }
.flame-wrap { max-height: 440px; overflow-y: auto; border: 1px solid var(--rule); border-radius: 3px; }
.flame { position: relative; min-height: 18px; font: 11px/17px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.flame .f { position: absolute; height: 17px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis;
  padding: 0 3px; box-sizing: border-box; cursor: pointer; border-radius: 2px; }
.flame .f:hover { outline: 1px solid #1d1d1f; z-index: 1; }
.flame .f.run { font-style: italic; background-image: repeating-linear-gradient(135deg, transparent 0 7px, rgba(255, 255, 255, .5) 7px 10px); }
.flame .f.none { color: var(--muted); cursor: default; }
.flame .anc { opacity: .6; }
.flame.searching .f { opacity: .35; }
.flame.searching .f.m { opacity: 1; background-color: #ee3f8a !important; color: #fff; }
.flame-toggle { color: var(--muted); white-space: nowrap; }
.flame-pair { display: flex; gap: 12px; }
.flame-side { flex: 1 1 0; min-width: 0; }
.flame-side h3 { margin: 6px 0 4px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#flame-info { min-height: 20px; }
#flame-info .where, .src .fns { color: var(--muted); }
.src { font: 12px/18px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; border: 1px solid var(--rule); border-radius: 3px; overflow-x: auto; }
.sl { display: grid; grid-template-columns: 52px 72px 72px 56px 1fr; white-space: pre; }
.sl > span { text-align: right; padding-right: 8px; color: var(--muted); }
.sl.hot > span { color: var(--fg); }
.sl.hottest { outline: 2px solid #e8590c; outline-offset: -2px; }
.sl code { font: inherit; padding-left: 8px; border-left: 1px solid var(--rule); }
.sl:target { outline: 2px solid var(--bar); outline-offset: -2px; }
details.cold > summary { color: var(--muted); padding: 0 8px; font-family: system-ui, sans-serif; }
h3 { font-size: 14px; margin: 18px 0 6px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table.opcodes, table.functions, table.lines, details.function-opcodes, .src { content-visibility: auto; contain-intrinsic-size: auto 600px; }
h3 .meta { font-family: system-ui, sans-serif; font-weight: normal; color: var(--muted); }
{{end}}`

// inputCostSection is the report's section of jsprof run --input-cost.
const inputCostSection = `{{define "inputcost"}}{{range $i, $c := .InputCost}}<h2 id="input-cost{{if $i}}-{{$i}}{{end}}">What each field of {{.Input}} costs to decode</h2>
{{if .Error}}<p class="meta">{{.Error}}</p>{{else}}<p class="meta">Input decoding: <b>{{human .Decoding}}</b> of {{human .Total}} instructions ({{pct (share .Decoding .Total)}}), {{size .InputBytes}} of JSON input.{{if .Failed}} The function failed on the whole input.{{end}}</p>
<table class="input-cost">
<thead><tr><th>path</th><th>decoding saved</th><th>of decoding</th><th>of {{human .Limit}}</th><th>bytes</th><th>run saved</th><th>output without it</th></tr></thead>
<tbody>
{{range .Paths}}<tr class="input-path" data-path="{{.Path}}" data-output="{{.Output}}"><td class="name">{{.Path}}{{with .Query}} <span class="meta">({{.}})</span>{{end}}</td><td title="{{.Saved}}">{{saving .Saved}}</td><td>{{pct .OfDecoding}}</td><td>{{pct .OfLimit}}</td><td title="{{.Bytes}}">{{size .Bytes}}</td><td title="{{.TotalSaved}}">{{saving .TotalSaved}}</td><td>{{if .Error}}{{.Error}}{{else}}{{.Output}}{{end}}</td></tr>
{{end}}</tbody>
</table>
<p class="note">Each row is what one run on this input without that path (from every element of <code>[]</code>) saved, measured. Removals are not additive: the top-level paths save {{saving .TopLevel}} together, against {{human .Decoding}} of input decoding. "unchanged" is about this input only: the function may still read that field on another input.{{if or .Small .LeftOut}} Not measured: {{.Small}} paths under {{pct .MinShare}} of the input's bytes, {{.LeftOut}} over it left out to keep the runs bounded.{{end}}</p>
{{end}}{{end}}{{end}}`

const reportPage = `{{define "report"}}{{template "head" .}}{{with .Data}}<p class="meta" id="totals"><b>{{human .TotalWasmInstructions}}</b> Wasm instructions ({{exact .TotalWasmInstructions}}),
{{if .Counted}}{{human .Executions}} JS opcode executions, {{human .Calls}} JS calls, {{.Mode}} mode{{else}}{{.Mode}} mode (it counts no opcode executions or calls: --mode exact does){{end}}
· engine <b>{{engine .Engine}}</b>{{if .Engine.OpcodeNamesSource}} (opcode names: {{.Engine.OpcodeNamesSource}}){{end}}{{if .Module}} · module {{.Module}}{{end}}{{if .Trap}} · the guest trapped: {{.Trap}}{{else if failed .ExitCode}} · exit code {{.ExitCode}}{{end}}</p>
{{with .Throw}}<p class="meta" id="throw">uncaught <b>{{.Message}}</b>{{range $i, $f := .Stack}}{{if $i}} ← {{else}}, thrown at {{end}}{{$f}}{{end}}</p>{{end}}{{end}}
{{if .Function}}<p class="meta">Only the JS functions named <b>{{.Function}}</b>; shares are of the whole profile.</p>{{end}}
{{with .Data.Phases}}<h2 id="phases">Phases of the run</h2>
<table class="phases">
<thead><tr><th>phase</th><th>Wasm instructions</th><th>share</th><th>Wasm instructions</th></tr></thead>
<tbody>
{{range .}}<tr class="phase" data-name="{{.Name}}"><td class="name">{{.Name}}</td><td title="{{exact .WasmInstructions}}">{{human .WasmInstructions}}</td><td>{{pct (share .WasmInstructions $.Data.TotalWasmInstructions)}}</td><td class="bars"><div class="bar" style="{{barWidth .WasmInstructions $.MaxPhase}}"></div></td></tr>
{{end}}</tbody>
</table>
{{end}}{{template "inputcost" .}}{{template "hot" .}}
{{if .Flame}}{{template "flame" .FlameView}}{{end}}
{{template "source" .}}
{{template "natives" .}}

<h2 id="opcodes">Cost per opcode</h2>
<table class="opcodes">
<thead><tr><th>opcode</th>{{if .Data.Counted}}<th>executions</th>{{end}}<th>Wasm instructions</th>{{if .Data.Counted}}<th>instr/exec</th>{{end}}<th>share</th><th>Wasm instructions</th></tr></thead>
<tbody>
{{range .Opcodes}}<tr class="opcode" data-name="{{.Name}}" data-opcode="{{.Opcode}}"><td class="name">{{.Name}}{{if .UncertainName}}<span class="uncertain" title="name uncertain">?</span>{{end}}{{with .EngineWorkNote}} <span class="engine-work" title="work the engine did inside the opcode, told by its Wasm functions' names">{{.}}</span>{{end}}</td>{{if $.Data.Counted}}<td title="{{exact .Executions}}">{{human .Executions}}</td>{{end}}<td title="{{exact .WasmInstructions}}">{{human .WasmInstructions}}</td>{{if $.Data.Counted}}<td>{{perExec .}}</td>{{end}}<td>{{pct .Share}}</td><td class="bars"><div class="bar" style="{{barWidth .WasmInstructions $.MaxOpcode}}"></div></td></tr>
{{end}}{{if .MoreOps}}<tr class="more"><td colspan="6">… {{.MoreOps}} more opcodes</td></tr>
{{end}}{{range .Data.Buckets}}<tr class="bucket" data-name="{{.Name}}"><td class="name">{{.Name}}</td>{{if $.Data.Counted}}<td></td>{{end}}<td title="{{exact .WasmInstructions}}">{{human .WasmInstructions}}</td>{{if $.Data.Counted}}<td></td>{{end}}<td>{{pct (share .WasmInstructions $.Data.TotalWasmInstructions)}}</td><td class="bars"><div class="bar" style="{{barWidth .WasmInstructions $.MaxOpcode}}"></div></td></tr>
{{end}}</tbody>
</table>

<h2 id="functions">JS functions</h2>
<table class="functions">
<thead><tr><th>function</th>{{if .Data.Counted}}<th>calls</th><th>executions</th>{{end}}<th>self Wasm instructions</th><th>share</th>{{if eq .Data.Mode "sample"}}<th>cumulative</th>{{end}}<th>self Wasm instructions</th></tr></thead>
<tbody>
{{range .Functions}}<tr class="function" data-name="{{.Name}}"><td class="name"{{if .CheckFailed}} title="the self-check failed: {{.CheckFailed}}"{{end}}>{{.Label}}</td>{{if $.Data.Counted}}<td title="{{exact .Calls}}">{{human .Calls}}</td><td title="{{exact .Executions}}">{{human .Executions}}</td>{{end}}<td title="{{exact .SelfWasmInstructions}}">{{human .SelfWasmInstructions}}</td><td>{{pct .Share}}</td>{{if eq $.Data.Mode "sample"}}<td title="{{exact .TotalWasmInstructions}}">{{human .TotalWasmInstructions}}</td>{{end}}<td class="bars"><div class="bar" style="{{barWidth .SelfWasmInstructions $.MaxFn}}"></div></td></tr>
{{end}}{{if .MoreFns}}<tr class="more"><td colspan="6">… {{.MoreFns}} more functions</td></tr>
{{end}}</tbody>
</table>

<h2 id="function-opcodes">Opcodes of each JS function</h2>
{{if .DetailsCut}}<p class="note">The {{len .Details}} costliest JS functions.</p>
{{end}}{{range $i, $f := .Details}}<details class="function-opcodes" data-name="{{$f.Name}}"{{if eq $i 0}} open{{end}}>
<summary><span class="name">{{$f.Label}}</span>: {{human $f.SelfWasmInstructions}} Wasm instructions ({{pct $f.Share}}){{if $.Data.Counted}}, {{calls $f.Calls}}{{end}}</summary>
<table>
<thead><tr><th>opcode</th>{{if $.Data.Counted}}<th>executions</th>{{end}}<th>Wasm instructions</th>{{if $.Data.Counted}}<th>instr/exec</th>{{end}}<th>share</th><th>Wasm instructions</th></tr></thead>
<tbody>
{{range $f.Opcodes}}<tr class="function-opcode" data-function="{{$f.Name}}" data-name="{{.Name}}"><td class="name">{{.Name}}{{if .UncertainName}}<span class="uncertain" title="name uncertain">?</span>{{end}}</td>{{if $.Data.Counted}}<td title="{{exact .Executions}}">{{human .Executions}}</td>{{end}}<td title="{{exact .WasmInstructions}}">{{human .WasmInstructions}}</td>{{if $.Data.Counted}}<td>{{perExec .}}</td>{{end}}<td>{{pct .Share}}</td><td class="bars"><div class="bar" style="{{barWidth .WasmInstructions $.MaxOpcode}}"></div></td></tr>
{{end}}{{if $f.MoreOps}}<tr class="more"><td colspan="6">… {{$f.MoreOps}} more opcodes</td></tr>
{{end}}</tbody>
</table>
</details>
{{end}}

<h2 id="lines">Source lines</h2>
{{with .Data.LineNote}}<p class="note" id="line-note">{{.}}.</p>
{{end}}<table class="lines">
<thead><tr><th>line</th><th>function</th>{{if .Data.Counted}}<th>executions</th>{{end}}<th>self Wasm instructions</th><th>self share</th><th>total</th><th>total share</th><th>total Wasm instructions</th></tr></thead>
<tbody>
{{range .Lines}}<tr class="line" data-line="{{lineLabel .}}"><td class="name">{{lineLabel .}}</td><td class="name">{{.Function}}</td>{{if $.Data.Counted}}<td title="{{exact .Executions}}">{{human .Executions}}</td>{{end}}<td title="{{exact .SelfWasmInstructions}}">{{human .SelfWasmInstructions}}</td><td>{{pct .Share}}</td><td title="{{exact .TotalWasmInstructions}}">{{human .TotalWasmInstructions}}</td><td>{{pct .TotalShare}}</td><td class="bars"><div class="bar" style="{{barWidth .TotalWasmInstructions $.MaxLine}}"></div></td></tr>
{{end}}{{if .MoreLines}}<tr class="more"><td colspan="8">… {{.MoreLines}} more lines</td></tr>
{{end}}</tbody>
</table>
{{if .Wasm}}
<h2 id="wasm">Wasm functions{{if .Data.WasmApportioned}} (apportioned){{end}}</h2>
<table class="wasm">
<thead><tr><th>Wasm function</th><th>self Wasm instructions</th><th>share</th><th>total</th><th>reached from</th><th>self Wasm instructions</th></tr></thead>
<tbody>
{{range (wasmRows .Wasm .WasmBuckets)}}<tr class="wasm-function" data-name="{{.Name}}" data-kind="{{.Kind}}"><td class="name">{{.Name}}</td><td title="{{exact .SelfWasmInstructions}}">{{human .SelfWasmInstructions}}</td><td>{{pct .Share}}</td><td title="{{exact .TotalWasmInstructions}}">{{human .TotalWasmInstructions}}</td><td class="name">{{range $i, $c := .Callers}}{{if $i}}, {{end}}<span title="{{exact $c.TotalWasmInstructions}} Wasm instructions">{{$c.Label}}</span>{{end}}{{if .OmittedCallers}} and {{.OmittedCallers}} more{{end}}</td><td class="bars"><div class="bar" style="{{barWidth .SelfWasmInstructions $.MaxWasm}}"></div></td></tr>
{{end}}{{if .MoreWasm}}<tr class="more"><td colspan="6">… {{.MoreWasm}} more Wasm functions</td></tr>
{{end}}</tbody>
</table>
<p class="note">Self: the function was the innermost frame; total: on the stack. Reached from: the innermost JS opcodes and natives above it, by total. {{.Data.Mode}} mode; <code>jsprof report --by wasm</code> has the callers' counts.</p>
{{end}}
{{if .Uncertain}}<p class="note"><span class="uncertain">?</span> name uncertain ({{.UncertainW}})</p>{{end}}
<p class="note">Written by jsprof. Counts are Wasm instructions executed (docs/instruction-counting.md); hover a number for its exact value.</p>
{{if .Flame}}<script type="application/json" id="flame-data">{{flameData .Flame}}</script>
<script>{{flameScript}}</script>{{end}}
</body>
</html>
{{end}}`

// reportParts are the report page's first screen (the hot spots, the
// flame graph), its annotated source and its natives.
const reportParts = `{{define "hot"}}<div class="hotspots" id="hotspots">
{{with .Hot.Line}}<a class="card k-line" id="hot-line" data-name="{{lineLabel .}}" href="#{{if $.Hot.LineID}}{{$.Hot.LineID}}{{else}}lines{{end}}"><span class="what">hottest line (total)</span><b>{{lineLabel .}}</b> {{pct .TotalShare}}<span class="sub">{{.Function}}{{with $.Hot.LineText}}: <code>{{clip . 70}}</code>{{end}}{{with $.Hot.Through}}; under {{.}}, which passes nearly all on{{end}}</span></a>
{{end}}{{with .Hot.Native}}<a class="card k-native" id="hot-native" data-name="{{.Name}}" href="#natives"><span class="what">heaviest native</span><b>{{.Name}}</b> {{pct .Share}}<span class="sub">{{human .TotalWasmInstructions}} Wasm instructions{{if not .Named}}; natives not named{{end}}</span></a>
{{end}}{{with .Hot.Function}}<a class="card k-function" id="hot-function" data-name="{{.Name}}" href="#functions"><span class="what">hottest JS function (self)</span><b>{{.Name}}</b> {{pct .Share}}<span class="sub">{{.Label}}{{if $.Data.Counted}}, {{calls .Calls}}{{end}}</span></a>
{{end}}{{with .Hot.Opcode}}<a class="card k-opcode" id="hot-opcode" data-name="{{.Name}}" href="#opcodes"><span class="what">costliest opcode</span><b>{{.Name}}</b> {{pct .Share}}<span class="sub">{{if and $.Data.Counted .Executions}}{{human .Executions}} executions, {{perExec .}} instructions each{{else}}{{human .WasmInstructions}} Wasm instructions{{if not $.Data.Counted}} (sampled){{end}}{{end}}{{if .EngineWorkNote}}; <span class="engine-work" title="work the engine did inside the opcode, told by its Wasm functions' names">{{if and $.Data.Counted .Executions}}{{human .WasmInstructions}} in all, {{end}}{{.EngineWorkNote}}</span>{{end}}</span></a>
{{end}}</div>{{end}}

{{define "flame"}}{{$f := .F}}<h2 id="flame-graph">{{if $f.Diff}}Flame graphs: base and new side by side{{else}}Flame graph{{end}}</h2>
<div class="flame-bar"><input id="flame-search" type="search" placeholder="search frames: text or /regexp/" aria-label="search frames"><button id="flame-reset" type="button">reset zoom</button><label class="flame-toggle" hidden><input type="checkbox" id="flame-wasm"> every Wasm frame</label><span id="flame-found"></span>
<span class="note legend">{{if $f.Diff}}<span style="background: hsl(0, 70%, 64%)"></span>more Wasm instructions in new <span style="background: hsl(145, 60%, 62%)"></span>fewer <span style="background: hsl(220, 8%, 78%)"></span>same <span style="background: hsl(0, 85%, 36%)"></span>only in new <span style="background: hsl(145, 75%, 26%)"></span>only in base{{else}}<span class="k-j"></span>JS <span class="k-o"></span>opcode <span class="k-n"></span>native <span class="k-w"></span>Wasm <span class="k-b"></span>bucket{{end}}</span></div>
<nav id="flame-crumbs"></nav>
{{if $f.Diff}}<div class="flame-pair">
<div class="flame-side" id="flame-side-base"><h3 title="{{.Base}}">base <span class="meta">{{human $f.BaseTotal}} Wasm instructions · {{.Base}}</span></h3><div class="flame-wrap"><div id="flame-base" class="flame" data-side="base" data-mode="{{$f.Mode}}"></div></div></div>
<div class="flame-side" id="flame-side-new"><h3 title="{{.New}}">new <span class="meta">{{human $f.Root.Instructions}} Wasm instructions · {{.New}}</span></h3><div class="flame-wrap"><div id="flame" class="flame" data-side="new" data-mode="{{$f.Mode}}"></div></div></div>
</div>
{{else}}<div class="flame-wrap" id="flame-wrap"><div id="flame" class="flame" data-mode="{{$f.Mode}}"></div></div>
{{end}}<p id="flame-info" class="meta"></p>
<p class="note">{{if $f.Diff}}Both runs' {{$f.Mode}}-mode stacks merged into one tree, root on top: the base's graph on the left, new's on the right, each as wide as its run's Wasm instructions, both coloured by the change at the same stack. Frames are matched by kind and name (JS functions also by file and first line); a run of Wasm frames that cannot be matched across the engines (unnamed wasm-function[N], or named in one run only) is one {{foldedWasm}} frame. A click zooms both graphs.{{else}}The {{$f.Mode}}-mode stacks merged, root on top; widths are Wasm instructions. Click a frame to zoom, the path above or Escape to go back.{{end}}<span class="flame-wasm-note" hidden> The Wasm frames above the first JS frame are one striped row: click it, or tick <i>every Wasm frame</i>, to see them.</span> {{$f.Nodes}} nodes from {{$f.Stacks}} stacks: frames under 0.01% of the total are summed into (other).</p>
{{end}}

{{define "source"}}{{if or .Sources .NoSource}}<h2 id="source">Source</h2>{{end}}
{{range $v := .Sources}}<section class="source" id="{{$v.ID}}" data-file="{{$v.File}}">
<h3>{{$v.File}} <span class="meta">{{human $v.Instructions}} Wasm instructions on its lines ({{pct $v.Share}}) · hottest line {{$v.Hottest}} · source: {{$v.From}}</span></h3>
<div class="src">
{{range $v.Blocks}}{{if .Cold}}<details class="cold"><summary>… {{if .Omitted}}{{.Omitted}}{{else}}{{len .Lines}}{{end}} lines without cost</summary>
{{end}}{{range .Lines}}<div class="sl{{if .Total}} hot{{end}}{{if eq .N $v.Hottest}} hottest{{end}}" id="{{$v.ID}}-L{{.N}}" data-line="{{.N}}" data-instr="{{.Instructions}}" data-total="{{.Total}}"{{if .Heat}} style="{{.Heat}}" title="{{.Functions}}: {{exact .Instructions}} Wasm instructions in its own opcodes, {{exact .Total}} with what it called{{if $.Data.Counted}}, {{exact .Executions}} opcode executions{{end}}"{{end}}><span>{{.N}}</span><span>{{if .Instructions}}{{human .Instructions}}{{end}}</span><span>{{if .Total}}{{human .Total}}{{end}}</span><span>{{if .Total}}{{pct .TotalShare}}{{end}}</span><code>{{.Text}}</code></div>
{{end}}{{if .Cold}}</details>
{{end}}{{end}}</div>
</section>
{{end}}{{if .NoSource}}<p class="note" id="no-source">No source text for {{range $i, $f := .NoSource}}{{if $i}}, {{end}}{{$f}}{{end}}{{if .NoSourceMore}} and {{.NoSourceMore}} more files{{end}}: <code>jsprof report --source FILE</code> or <code>--module FILE</code> (a module that carries its JS) annotates it line by line; its lines are in the <a href="#lines">line table</a>.</p>
{{end}}{{range .Unplaced}}<p class="note unplaced">{{.Name}}: no JS file of that name in the profile.</p>
{{end}}{{end}}

{{define "natives"}}{{if .Natives}}<h2 id="natives">Native builtins</h2>
<table class="natives">
<thead><tr><th>native</th>{{if .Data.Counted}}<th>calls</th>{{end}}<th>self Wasm instructions</th><th>total Wasm instructions</th><th>share</th><th>Wasm instructions</th></tr></thead>
<tbody>
{{range .Natives}}<tr class="native" data-name="{{.Name}}" data-named="{{.Named}}"><td class="name">{{.Name}}</td>{{if $.Data.Counted}}<td title="{{exact .Calls}}">{{if .Named}}{{human .Calls}}{{end}}</td>{{end}}<td title="{{exact .SelfWasmInstructions}}">{{human .SelfWasmInstructions}}</td><td title="{{exact .TotalWasmInstructions}}">{{human .TotalWasmInstructions}}</td><td>{{pct .Share}}</td><td class="bars"><div class="bar native-bar" style="{{barWidth .TotalWasmInstructions $.MaxNative}}"></div></td></tr>
{{end}}</tbody>
</table>
<p class="note">Native (C) functions the JS called: <code>JSON.stringify</code>, <code>Array.prototype.sort</code>… {{range .Natives}}{{if not .Named}}(native functions) holds the natives the profile does not name. {{end}}{{end}}Total: with the native on the stack, JS callbacks included; self: without them.</p>
{{end}}{{end}}`

const diffPage = `{{define "diff"}}{{template "head" .}}{{with .Diff}}<p class="meta">base: <b>{{engine .Base.Engine}}</b>{{if .Base.Profile}} ({{.Base.Profile}}{{if .Base.Module}}, {{.Base.Module}}{{end}}){{end}}, {{.Base.Mode}} mode{{if .Base.Engine.OpcodeNamesSource}}, opcode names: {{.Base.Engine.OpcodeNamesSource}}{{end}}</p>
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
{{if .Flame}}{{template "flame" .FlameView}}{{end}}

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
{{if .Flame}}<script type="application/json" id="flame-data">{{flameData .Flame}}</script>
<script>{{flameScript}}</script>{{end}}
</body>
</html>
{{end}}`
