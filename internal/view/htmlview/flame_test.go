package htmlview

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/view/report"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// A stack of a built profile, root first, with its values.
type stackSpec struct {
	frames              []jsprofile.Frame
	instr, execs, calls int64
}

// Frames of built profiles: JS functions of app.js, each at its own
// address, declared at its line here.
var jsFunctions = map[string]int{"<eval>": 10, "render": 20, "JSON.stringify" + report.NativeSuffix: 30, "main": 40, "f": 50, "</script><b>x": 60}

func jsf(name string, line int) jsprofile.Frame {
	start, ok := jsFunctions[name]
	if !ok {
		panic("no JS function " + name + " in jsFunctions")
	}
	return jsprofile.JSFrame(name, "app.js", start, line, uint32(0x1000+0x10*start), uint32(max(line-start, 0)))
}

func opf(name string, value int) jsprofile.Frame { return jsprofile.OpcodeFrame(name, value) }
func wasmf(i uint32, name string) jsprofile.Frame {
	return jsprofile.WasmFrame(i, name, "", 0, uint64(i)*16)
}
func bucketf(name string) jsprofile.Frame { return jsprofile.BucketFrame(name) }

// buildProfile makes a profile of the stacks, as jsprof writes them.
func buildProfile(t testing.TB, mode string, stacks []stackSpec) *jsprofile.Profile {
	t.Helper()
	var total uint64
	for _, s := range stacks {
		total += uint64(s.instr)
	}
	meta := jsprofile.Meta{Mode: mode, TotalInstructions: total, Engine: jsprofile.EngineInfo{Family: "quickjs-ng", Releases: []string{"v0.10.0"}, OpcodeNamesSource: "table"}, Module: "app.wasm"}
	if mode == jsprofile.ModeSample {
		meta.SampleEvery = 1000
	}
	b := jsprofile.NewBuilder(meta)
	for _, s := range stacks {
		b.Add(s.frames, s.instr, s.execs, s.calls)
	}
	p, err := b.Profile()
	require.NoError(t, err)
	jp, err := jsprofile.Read(p)
	require.NoError(t, err)
	return jp
}

func st(instr int64, frames ...jsprofile.Frame) stackSpec {
	return stackSpec{frames: frames, instr: instr}
}

// smallStacks: <eval> calls render, which calls JSON.stringify (a named
// native) and computes; outside JS and unnamed natives.
func smallStacks() []stackSpec {
	return []stackSpec{
		{frames: []jsprofile.Frame{jsf("<eval>", 12), opf("call1", 36), jsf("render", 21), opf("add", 5)}, instr: 100, execs: 10, calls: 0},
		{frames: []jsprofile.Frame{jsf("<eval>", 12), opf("call1", 36), jsf("render", 22), opf("sub", 6)}, instr: 50, execs: 5},
		{frames: []jsprofile.Frame{jsf("<eval>", 12), opf("call1", 36), jsf("render", 20)}, calls: 3},
		{frames: []jsprofile.Frame{jsf("<eval>", 12), opf("call1", 36), jsf("render", 23), opf("call_method", 7), jsf("JSON.stringify"+report.NativeSuffix, 0)}, instr: 30},
		{frames: []jsprofile.Frame{jsf("<eval>", 13), opf("get_var", 8)}, instr: 10, execs: 2},
		{frames: []jsprofile.Frame{bucketf(jsprofile.BucketNative)}, instr: 20},
		{frames: []jsprofile.Frame{bucketf(jsprofile.BucketOutside)}, instr: 5},
	}
}

// flat lists a flame graph's nodes as "kind:name;…=instructions" paths,
// preorder.
func flat(f *Flame) []string {
	var out []string
	var walk func(n *FlameNode, path string)
	walk = func(n *FlameNode, path string) {
		label := "all"
		switch {
		case n.Frame == -2:
			label = "x:" + OtherName
		case n.Frame >= 0:
			label = f.Frames[n.Frame].Kind + ":" + f.Frames[n.Frame].Name
		}
		if path != "" {
			label = path + ";" + label
		}
		s := fmt.Sprintf("%s=%d", label, n.Instructions)
		if f.Diff {
			if n.InBase {
				s += fmt.Sprintf(" base=%d", n.Base)
			} else {
				s += " base=-"
			}
		}
		out = append(out, s)
		for _, c := range n.Children {
			walk(c, label)
		}
	}
	walk(f.Root, "")
	return out
}

func TestFlame(t *testing.T) {
	tests := []struct {
		name          string
		opts          FlameOptions
		want          []string
		nodes, stacks int
	}{
		{"every stack merged, heaviest first", FlameOptions{}, []string{
			"all=215",
			"all;j:<eval>=190",
			"all;j:<eval>;o:op:call1=180",
			"all;j:<eval>;o:op:call1;j:render=180",
			"all;j:<eval>;o:op:call1;j:render;o:op:add=100",
			"all;j:<eval>;o:op:call1;j:render;o:op:sub=50",
			"all;j:<eval>;o:op:call1;j:render;o:op:call_method=30",
			"all;j:<eval>;o:op:call1;j:render;o:op:call_method;n:JSON.stringify (native)=30",
			"all;j:<eval>;o:op:get_var=10",
			"all;n:(native functions)=20",
			"all;b:(outside JS)=5",
		}, 11, 7},
		{"under 10% summed into (other)", FlameOptions{MinShare: 0.1}, []string{
			"all=215",
			"all;j:<eval>=190",
			"all;j:<eval>;o:op:call1=180",
			"all;j:<eval>;o:op:call1;j:render=180",
			"all;j:<eval>;o:op:call1;j:render;o:op:add=100",
			"all;j:<eval>;o:op:call1;j:render;o:op:sub=50",
			"all;j:<eval>;o:op:call1;j:render;o:op:call_method=30",
			"all;j:<eval>;o:op:call1;j:render;o:op:call_method;n:JSON.stringify (native)=30",
			"all;j:<eval>;x:(other)=10",
			"all;x:(other)=25",
		}, 10, 7},
		{"the heaviest 4 nodes", FlameOptions{MaxNodes: 4}, []string{
			"all=215",
			"all;j:<eval>=190",
			"all;j:<eval>;o:op:call1=180",
			"all;j:<eval>;o:op:call1;j:render=180",
			"all;j:<eval>;o:op:call1;j:render;x:(other)=180",
			"all;j:<eval>;x:(other)=10",
			"all;x:(other)=25",
		}, 7, 7},
		{"only the stacks of one function", FlameOptions{Function: "render"}, []string{
			"all=180",
			"all;j:<eval>=180",
			"all;j:<eval>;o:op:call1=180",
			"all;j:<eval>;o:op:call1;j:render=180",
			"all;j:<eval>;o:op:call1;j:render;o:op:add=100",
			"all;j:<eval>;o:op:call1;j:render;o:op:sub=50",
			"all;j:<eval>;o:op:call1;j:render;o:op:call_method=30",
			"all;j:<eval>;o:op:call1;j:render;o:op:call_method;n:JSON.stringify (native)=30",
		}, 8, 4},
	}
	p := buildProfile(t, jsprofile.ModeExact, smallStacks())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFlame(p, tt.opts)
			assert.Equal(t, tt.want, flat(f))
			assert.Equal(t, tt.nodes, f.Nodes)
			assert.Equal(t, tt.stacks, f.Stacks, "the samples merged")
		})
	}
}

func TestFlameValues(t *testing.T) {
	f := NewFlame(buildProfile(t, jsprofile.ModeExact, smallStacks()), FlameOptions{MinShare: -1})
	render := f.Root.Children[0].Children[0].Children[0]
	require.Equal(t, "render", f.Frames[render.Frame].Name)
	assert.Equal(t, FlameFrame{Kind: FlameJS, Name: "render", Where: "app.js:20"}, f.Frames[render.Frame])
	assert.Equal(t, uint64(15), render.Executions)
	assert.Equal(t, uint64(3), render.Calls)
	assert.Len(t, render.Children, 3)
	assert.Equal(t, 11, f.Nodes, "with MinShare < 0, every node")
}

func TestFlameNatives(t *testing.T) {
	f := NewFlame(buildProfile(t, jsprofile.ModeExact, smallStacks()), FlameOptions{})
	assert.Equal(t, []NativeCost{
		{Name: "JSON.stringify", Named: true, SelfWasmInstructions: 30, TotalWasmInstructions: 30, Share: 30.0 / 215},
		{Name: jsprofile.BucketNative, SelfWasmInstructions: 20, TotalWasmInstructions: 20, Share: 20.0 / 215},
	}, f.Natives)
}

func TestIsNative(t *testing.T) {
	tests := []struct {
		kind        jsprofile.FrameKind
		name, sys   string
		native      bool
		displayKind string
	}{
		{jsprofile.KindJS, "JSON.stringify (native)", "js:JSON.stringify (native)@0x10", true, FlameNative},
		{jsprofile.KindJS, "render", "js:render@0x10", false, FlameJS},
		{jsprofile.FrameKind("native"), "Array.prototype.sort", "native:Array.prototype.sort", true, FlameNative},
		{jsprofile.KindBucket, jsprofile.BucketNative, "bucket:native", true, FlameNative},
		{jsprofile.KindBucket, jsprofile.BucketOutside, "bucket:outside", false, FlameBucket},
		{jsprofile.KindOpcode, "op:add", "op:5", false, FlameOpcode},
		{jsprofile.KindWasm, "JS_CallInternal", "wasm:12", false, FlameWasm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := jsprofile.StackFrame{Kind: tt.kind, Function: &profile.Function{Name: tt.name, SystemName: tt.sys}}
			assert.Equal(t, tt.native, isNative(f))
			assert.Equal(t, tt.displayKind, flameFrameOf(f).Kind)
		})
	}
}

func TestFlameDiff(t *testing.T) {
	base := buildProfile(t, jsprofile.ModeExact, []stackSpec{
		// Another engine: other addresses, another Wasm index.
		st(100, jsprofile.JSFrame("<eval>", "app.js", 10, 12, 0x9000, 2), opf("call1", 34), jsprofile.JSFrame("render", "app.js", 20, 21, 0x9100, 1), opf("add", 3)),
		st(40, jsprofile.JSFrame("<eval>", "app.js", 10, 12, 0x9000, 2), opf("get_loc", 9)),
		st(60, bucketf(jsprofile.BucketNative)),
	})
	f := NewFlameDiff(base, buildProfile(t, jsprofile.ModeExact, smallStacks()), FlameOptions{MinShare: 0.1})
	assert.True(t, f.Diff)
	assert.Equal(t, uint64(200), f.BaseTotal)
	assert.Equal(t, []string{
		"all=215 base=200",
		"all;j:<eval>=190 base=140",
		"all;j:<eval>;o:op:call1=180 base=100",
		"all;j:<eval>;o:op:call1;j:render=180 base=100",
		"all;j:<eval>;o:op:call1;j:render;o:op:add=100 base=100",
		"all;j:<eval>;o:op:call1;j:render;o:op:sub=50 base=-",
		"all;j:<eval>;o:op:call1;j:render;o:op:call_method=30 base=-",
		"all;j:<eval>;o:op:call1;j:render;o:op:call_method;n:JSON.stringify (native)=30 base=-",
		"all;j:<eval>;o:op:get_loc=0 base=40",
		"all;j:<eval>;x:(other)=10 base=-",
		"all;n:(native functions)=20 base=60",
		"all;x:(other)=5 base=-",
	}, flat(f), "frames matched by name, not by address or opcode value; the base's paths too (get_loc, (native functions): over 10% of the base)")
	var inNew []bool
	var walk func(n *FlameNode)
	walk = func(n *FlameNode) {
		inNew = append(inNew, n.InNew)
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(f.Root)
	assert.Equal(t, []bool{true, true, true, true, true, true, true, true, false, true, true, true}, inNew, "op:get_loc is the base's only")
	assert.Contains(t, string(f.flameJSON()), `"not_in_new":[8]`)
}

// TestFlameDiffWasmFrames: Wasm frames are matched by name where both
// profiles name them; a run of Wasm frames with one unnamed, or named in
// one profile only, is one (Wasm frames) node on both sides, so that the
// JS frames under it line up across engines.
func TestFlameDiffWasmFrames(t *testing.T) {
	phase := jsprofile.PhaseFrame(jsprofile.PhaseJS)
	start, invoke, interp := wasmf(1, "_start"), wasmf(2, "invoke"), wasmf(3, "JS_CallInternal")
	unnamed := func(i uint32) jsprofile.Frame { return wasmf(i, fmt.Sprintf("wasm-function[%d]", i)) }
	named := []stackSpec{
		st(300, phase, start, wasmf(7, "invoke.command_export"), invoke, interp, jsf("<eval>", 12), opf("add", 5), wasmf(4, "js_add_slow")),
		st(100, phase, start, invoke, interp, jsf("<eval>", 13), opf("get_field", 65)),
	}
	stripped := []stackSpec{ // another engine: other indices, no names but _start's and invoke's
		st(200, phase, start, invoke, unnamed(118), unnamed(590), jsf("<eval>", 12), opf("add", 17), unnamed(340)),
		st(100, phase, start, invoke, unnamed(118), unnamed(590), jsf("<eval>", 13), opf("get_field", 66)),
	}
	tests := []struct {
		name      string
		base, new []stackSpec
		want      []string
	}{
		{"named engine against a stripped one", named, stripped, []string{
			"all=300 base=400",
			"all;b:phase: JS program=300 base=400",
			"all;b:phase: JS program;w:(Wasm frames)=300 base=400",
			"all;b:phase: JS program;w:(Wasm frames);j:<eval>=300 base=400",
			"all;b:phase: JS program;w:(Wasm frames);j:<eval>;o:op:add=200 base=300",
			"all;b:phase: JS program;w:(Wasm frames);j:<eval>;o:op:add;w:(Wasm frames)=200 base=300",
			"all;b:phase: JS program;w:(Wasm frames);j:<eval>;o:op:get_field=100 base=100",
		}},
		{"one named engine: every Wasm frame kept", named[1:], named[1:], []string{
			"all=100 base=100",
			"all;b:phase: JS program=100 base=100",
			"all;b:phase: JS program;w:_start=100 base=100",
			"all;b:phase: JS program;w:_start;w:invoke=100 base=100",
			"all;b:phase: JS program;w:_start;w:invoke;w:JS_CallInternal=100 base=100",
			"all;b:phase: JS program;w:_start;w:invoke;w:JS_CallInternal;j:<eval>=100 base=100",
			"all;b:phase: JS program;w:_start;w:invoke;w:JS_CallInternal;j:<eval>;o:op:get_field=100 base=100",
		}},
		{"one stripped engine: unnamed frames folded", stripped[1:], stripped[1:], []string{
			"all=100 base=100",
			"all;b:phase: JS program=100 base=100",
			"all;b:phase: JS program;w:(Wasm frames)=100 base=100",
			"all;b:phase: JS program;w:(Wasm frames);j:<eval>=100 base=100",
			"all;b:phase: JS program;w:(Wasm frames);j:<eval>;o:op:get_field=100 base=100",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFlameDiff(buildProfile(t, jsprofile.ModeExact, tt.base), buildProfile(t, jsprofile.ModeExact, tt.new), FlameOptions{})
			assert.Equal(t, tt.want, flat(f))
		})
	}
	// Out of a diff, every Wasm frame is kept.
	assert.Contains(t, flat(NewFlame(buildProfile(t, jsprofile.ModeExact, stripped), FlameOptions{})),
		"all;b:phase: JS program;w:_start;w:invoke;w:wasm-function[118];w:wasm-function[590];j:<eval>=300")
}

func TestFlameJSON(t *testing.T) {
	f := NewFlame(buildProfile(t, jsprofile.ModeExact, smallStacks()), FlameOptions{MinShare: 0.1})
	var doc struct {
		Mode   string     `json:"mode"`
		Diff   bool       `json:"diff"`
		Frames [][]string `json:"frames"`
		Nodes  []int64    `json:"nodes"`
		Base   []int64    `json:"base"`
	}
	require.NoError(t, json.Unmarshal(f.flameJSON(), &doc))
	assert.Equal(t, "exact", doc.Mode)
	assert.False(t, doc.Diff)
	assert.Nil(t, doc.Base)
	assert.Len(t, doc.Nodes, 5*f.Nodes)
	assert.Equal(t, []int64{-1, 215, 17, 3, 2}, doc.Nodes[:5], "the root: frame, instructions, executions, calls, children")
	var names []string
	for _, fr := range doc.Frames {
		require.Len(t, fr, 3)
		names = append(names, fr[0]+":"+fr[1])
	}
	assert.Equal(t, []string{"j:<eval>", "o:op:call1", "j:render", "o:op:add", "o:op:sub", "o:op:call_method", "n:JSON.stringify (native)"}, names,
		"only the frames of nodes kept, in preorder")
	assert.NotContains(t, string(f.flameJSON()), "(outside JS)", "a frame pruned away is not written")

	// Names cannot end the script element they are in.
	evil := buildProfile(t, jsprofile.ModeExact, []stackSpec{st(10, jsf("</script><b>x", 11))})
	out := string(NewFlame(evil, FlameOptions{}).flameJSON())
	assert.NotContains(t, out, "</script>")
	assert.Contains(t, out, `\u003c/script\u003e\u003cb\u003ex`)
}

func TestFlameSampleMode(t *testing.T) {
	start, invoke := wasmf(10, "_start"), wasmf(11, "invoke")
	interp, helper := wasmf(12, "JS_CallInternal"), wasmf(13, "js_add_slow")
	p := buildProfile(t, jsprofile.ModeSample, []stackSpec{
		st(3000, start, invoke, interp, jsf("main", 11), opf("add", 5), helper),
		st(1000, start, invoke, interp, jsf("main", 12), opf("call0", 30), interp, jsf("f", 21), opf("get_loc", 40)),
		st(2000, start, wasmf(20, "JS_Parse")),
	})
	f := NewFlame(p, FlameOptions{})
	assert.Equal(t, "sample", f.Mode)
	assert.Equal(t, []string{
		"all=6000",
		"all;w:_start=6000",
		"all;w:_start;w:invoke=4000",
		"all;w:_start;w:invoke;w:JS_CallInternal=4000",
		"all;w:_start;w:invoke;w:JS_CallInternal;j:main=4000",
		"all;w:_start;w:invoke;w:JS_CallInternal;j:main;o:op:add=3000",
		"all;w:_start;w:invoke;w:JS_CallInternal;j:main;o:op:add;w:js_add_slow=3000",
		"all;w:_start;w:invoke;w:JS_CallInternal;j:main;o:op:call0=1000",
		"all;w:_start;w:invoke;w:JS_CallInternal;j:main;o:op:call0;w:JS_CallInternal=1000",
		"all;w:_start;w:invoke;w:JS_CallInternal;j:main;o:op:call0;w:JS_CallInternal;j:f=1000",
		"all;w:_start;w:invoke;w:JS_CallInternal;j:main;o:op:call0;w:JS_CallInternal;j:f;o:op:get_loc=1000",
		"all;w:_start;w:JS_Parse=2000",
	}, flat(f), "lines of a JS function merge: a node per function")
	assert.True(t, strings.HasPrefix(string(f.flameJSON()), `{"mode":"sample"`))
}

// TestFlameNativeKind: natives as the profile format names them, frames of
// kind native (system name native:NAME@table[N]), under the opcode that
// called them, calling back into JS.
func TestFlameNativeKind(t *testing.T) {
	native := func(name string, index int) jsprofile.Frame {
		return jsprofile.Frame{Kind: "native", Name: name, SystemName: fmt.Sprintf("native:%s@table[%d]", name, index)}
	}
	stacks := []stackSpec{
		st(300, jsf("<eval>", 12), opf("call_method", 34), native("JSON.stringify", 7)),
		st(100, jsf("<eval>", 12), opf("call_method", 34), native("JSON.stringify", 7), jsf("render", 21), opf("add", 5)),
		st(50, jsf("<eval>", 13), opf("call_method", 34), native("Array.prototype.some", 9)),
		st(20, bucketf(jsprofile.BucketNative)),
	}
	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: 470})
	for _, s := range stacks {
		b.Add(s.frames, s.instr, 0, 1)
	}
	p, err := b.Profile()
	if err != nil {
		t.Skipf("this profile format has no native frames: %v", err)
	}
	jp, err := jsprofile.Read(p)
	require.NoError(t, err)
	f := NewFlame(jp, FlameOptions{})
	assert.Equal(t, []string{
		"all=470",
		"all;j:<eval>=450",
		"all;j:<eval>;o:op:call_method=450",
		"all;j:<eval>;o:op:call_method;n:JSON.stringify=400",
		"all;j:<eval>;o:op:call_method;n:JSON.stringify;j:render=100",
		"all;j:<eval>;o:op:call_method;n:JSON.stringify;j:render;o:op:add=100",
		"all;j:<eval>;o:op:call_method;n:Array.prototype.some=50",
		"all;n:(native functions)=20",
	}, flat(f))
	assert.Equal(t, []NativeCost{
		{Name: "JSON.stringify", Named: true, SelfWasmInstructions: 300, TotalWasmInstructions: 400, Calls: 1, Share: 400.0 / 470},
		{Name: "Array.prototype.some", Named: true, SelfWasmInstructions: 50, TotalWasmInstructions: 50, Calls: 1, Share: 50.0 / 470},
		{Name: jsprofile.BucketNative, SelfWasmInstructions: 20, TotalWasmInstructions: 20, Calls: 1, Share: 20.0 / 470},
	}, f.Natives, "self: without the JS it called back; calls: on stacks ending at it")
}
