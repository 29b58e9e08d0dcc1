package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestThrowIsReported: a JS function that throws has the error's message
// and the JS stack at the throw — the function and line, from jsprof's
// own frames, with the real file name — in the run's summary, the
// profile's comments, --report-json, jsprof report and its HTML page.
func TestThrowIsReported(t *testing.T) {
	dir := t.TempDir()
	module := buildJS(t, filepath.Join("testdata", "throw.js"))
	prof, doc := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "report.json")
	want := []jsprofile.ThrowFrame{
		{Function: "inner", File: "throw.js", Line: 4},
		{Function: "outer", File: "throw.js", Line: 9},
		{Function: "<eval>", File: "throw.js", Line: 11},
	}
	const place = "inner (throw.js:4) ← outer (throw.js:9) ← <eval> (throw.js:11)"

	got := jsprof(t, "", "run", "-o", prof, "--report-json", doc, module)
	require.Equal(t, 134, got.code, got.stderr)
	assert.Contains(t, got.stderr, "jsprof: uncaught Error: boom at 3, thrown at "+place+"\n")

	p, err := jsprofile.ReadFile(prof)
	require.NoError(t, err)
	require.NotNil(t, p.Meta.Throw, "the profile's comments carry the throw")
	assert.Equal(t, jsprofile.Throw{Message: "Error: boom at 3", Stack: want}, *p.Meta.Throw)
	assert.Contains(t, p.Comments, "jsprof.throw.message=Error: boom at 3")

	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	var rep struct{ Throw jsprofile.Throw }
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, jsprofile.Throw{Message: "Error: boom at 3", Stack: want}, rep.Throw)

	page := filepath.Join(dir, "report.html")
	text := jsprof(t, "", "report", "--html", page, prof)
	require.Equal(t, 0, text.code, text.stderr)
	assert.Contains(t, text.stdout, "uncaught: Error: boom at 3\n    at inner (throw.js:4)\n    at outer (throw.js:9)\n    at <eval> (throw.js:11)\n")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "uncaught <b>Error: boom at 3</b>, thrown at inner (throw.js:4) ← outer (throw.js:9) ← &lt;eval&gt; (throw.js:11)")

	// Sampling keeps each recursive call: the stack is the engine's too.
	sampled := jsprof(t, "", "run", "--mode", "sample", "--sample-every", "500", "-o", filepath.Join(dir, "s.pb.gz"), module)
	require.Equal(t, 134, sampled.code, sampled.stderr)
	assert.Contains(t, sampled.stderr, "jsprof: uncaught Error: boom at 3, thrown at inner (throw.js:4) ← inner (throw.js:6)")
}

// TestNoThrowWithoutATrap: a guest that prints what looks like an
// uncaught error but ends well has no throw reported (negative control).
func TestNoThrowWithoutATrap(t *testing.T) {
	src := filepath.Join(t.TempDir(), "lookalike.js")
	require.NoError(t, os.WriteFile(src, []byte("console.error(\"Error: not thrown\\n    at f (function.mjs:1:1)\");\n"), 0o644))
	module := buildJS(t, src)
	prof := filepath.Join(t.TempDir(), "p.pb.gz")
	got := jsprof(t, "", "run", "-o", prof, module)
	require.Equal(t, 0, got.code, got.stderr)
	assert.NotContains(t, got.stderr, "uncaught")
	p, err := jsprofile.ReadFile(prof)
	require.NoError(t, err)
	assert.Nil(t, p.Meta.Throw)
	for _, c := range p.Comments {
		assert.False(t, strings.HasPrefix(c, "jsprof.throw"), c)
	}
}

// TestFunctionThrowIsReported: an in-memory provider tells the error in
// the function's logs, not on stderr: the throw is reported all the same.
func TestFunctionThrowIsReported(t *testing.T) {
	dir := fixtures.ProvidersDir(t)
	module := buildFunction(t, "shopify_functions_javy_v4", filepath.Join("testdata", "throw.js"))
	got := jsprof(t, "", "run", "--plugin", dir, "--input", filepath.Join("testdata", "shopify", "input.json"), module)
	require.Equal(t, 134, got.code, got.stderr)
	assert.Contains(t, got.stderr, "jsprof: uncaught Error: boom at 3, thrown at inner (throw.js:4) ← outer (throw.js:9) ← <eval> (throw.js:11)\n")
}
