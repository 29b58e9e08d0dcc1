package htmlview

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jsprof/jsprof/internal/view/reporttest"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestHTMLFlameDeepStacks: a sampled recursion 2,800 deep (a JS frame, its
// call opcode and the interpreter's Wasm frame a level: 8,400 rows), and
// a run of 5,000 Wasm frames above the first JS frame, draw, zoom and
// search: the script recursed once a level to merge the runs, lay the
// nodes out and sum the matches, and Chromium stopped it with "Maximum
// call stack size exceeded", the graph never drawn.
func TestHTMLFlameDeepStacks(t *testing.T) {
	t.Parallel() // mostly waiting for Chromium
	const levels, wasmRun = 2800, 5000
	interp := wasmf(3, "JS_CallInternal")
	recursion := []jsprofile.Frame{wasmf(1, "_start"), wasmf(2, "invoke"), interp, jsf("<eval>", 12)}
	for range levels {
		recursion = append(recursion, opf("call1", 36), interp, jsf("f", 51))
	}
	deepWasm := []jsprofile.Frame{wasmf(1, "_start")}
	for i := range wasmRun {
		deepWasm = append(deepWasm, wasmf(uint32(10+i%7), "helper"))
	}
	deepWasm = append(deepWasm, jsf("main", 41))
	p := buildProfile(t, jsprofile.ModeSample, []stackSpec{st(5000, recursion...), st(3000, append(recursion[:len(recursion)-3:len(recursion)-3], opf("add", 5))...), st(2000, deepWasm...)})
	path := flamePage(t, p, "deep.pb.gz")
	b := reporttest.NewBrowser(t, 1280, 800)
	b.Open(path, "", flameReady)
	s := readFlame(t, b)
	assert.Greater(t, s.Nodes, 3*levels, "every level drawn")
	assert.Contains(t, s.Names, "f")
	assert.Contains(t, s.Names, "main")
	b.Eval(`(function () { var i = document.getElementById('flame-search'); i.value = 'main'; i.dispatchEvent(new Event('input')); })()`, nil)
	assert.Contains(t, readFlame(t, b).Found, "matched: 20.0% of this view")
	b.Eval(`(function () { var t = document.getElementById('flame-wasm'); t.checked = true; t.dispatchEvent(new Event('change')); })()`, nil)
	assert.Greater(t, readFlame(t, b).Nodes, wasmRun, "every Wasm frame shown")
}
