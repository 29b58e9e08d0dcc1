package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/view/report"
)

// esbuild runs the pinned esbuild in dir.
func esbuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(fixtures.Esbuild(t), append(args, "--log-level=warning")...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}

// copyFile copies src to dst, making dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	writeText(t, dst, string(b))
}

// shopifyProject lays out a Shopify app's JS function in a new directory —
// src/run.ts (testdata/sourcemap/run.ts), node_modules/@shopify/
// shopify_function (the pinned npm package) — and bundles it as Shopify
// CLI does (entry: the package's index.ts; user-function aliased to
// src/run.ts; bundle, format esm, target es2022), with a source map, into
// dist/function.js. It returns the directory.
func shopifyProject(t *testing.T, sourcemap string) string {
	t.Helper()
	dir := t.TempDir()
	pkg := filepath.Join(fixtures.NPMModules(t), "@shopify", "shopify_function")
	for _, f := range []string{"index.ts", "run.ts", "package.json"} {
		copyFile(t, filepath.Join(pkg, f), filepath.Join(dir, "node_modules", "@shopify", "shopify_function", f))
	}
	copyFile(t, filepath.Join("testdata", "sourcemap", "run.ts"), filepath.Join(dir, "src", "run.ts"))
	copyFile(t, filepath.Join("testdata", "sourcemap", "input.json"), filepath.Join(dir, "input.json"))
	esbuild(t, dir, "node_modules/@shopify/shopify_function/index.ts", "--bundle", "--format=esm", "--target=es2022",
		"--alias:user-function=./src/run.ts", "--outfile=dist/function.js", "--sourcemap="+sourcemap)
	return dir
}

// lineOf is the 1-based line of the first line of text that contains s.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line contains %q", s)
	return 0
}

// textLine is a 1-based line of text, trimmed.
func textLine(text string, n int) string {
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

// reportDoc is what these tests read of jsprof report --json.
type reportDoc struct {
	Functions []report.FunctionStats `json:"functions"`
	Lines     []report.LineStats     `json:"lines"`
}

// mappedReport runs jsprof report --json with args and decodes it.
func mappedReport(t *testing.T, args ...string) reportDoc {
	t.Helper()
	got := jsprof(t, "", append([]string{"report", "--json"}, args...)...)
	require.Equal(t, 0, got.code, got.stderr)
	var doc reportDoc
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &doc), got.stdout)
	return doc
}

// functionNamed is the function of that name in the report.
func functionNamed(t *testing.T, doc reportDoc, name string) report.FunctionStats {
	t.Helper()
	for _, f := range doc.Functions {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no function %s in %+v", name, doc.Functions)
	return report.FunctionStats{}
}

// TestSourceMapShopifyTypeScript: a TypeScript Shopify Function bundled
// as Shopify CLI bundles it, with esbuild's source map, built with jsprof
// build --dynamic against the v4 provider and run as function-runner runs
// it: the profile names the user's functions at their lines of
// src/run.ts, the Shopify runtime's at its files in node_modules, in the
// JSON report (the bundle's positions beside them), the line view, go
// tool pprof -list, the collapsed stacks and the HTML source view; a
// stale map is refused in one line and the bundle's positions kept. The
// bundle's module code, in three files, is one <eval> row
// (TestSourceMapEvalOneFunction counts it).
func TestSourceMapShopifyTypeScript(t *testing.T) {
	providers := fixtures.ProvidersDir(t)
	dir := shopifyProject(t, "linked")
	t.Chdir(dir) // as a user runs it, from the app's directory
	got := jsprof(t, "", "build", "--dynamic", "--plugin", filepath.Join(providers, "shopify_functions_javy_v4.wasm"), "dist/function.js", "-o", "dist/function.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	got = jsprof(t, "", "run", "-q", "--plugin", providers, "--input", "input.json", "-o", "p.pb.gz", "--collapsed", "p.txt", "dist/function.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	assert.Contains(t, got.stdout, `"discountApplicationStrategy":"FIRST"`)
	assert.NotContains(t, got.stderr, "source map", "the map is found and used without a word")

	ts, err := os.ReadFile("src/run.ts")
	require.NoError(t, err)
	bundle, err := os.ReadFile("dist/function.js")
	require.NoError(t, err)
	doc := mappedReport(t, "--by", "function", "p.pb.gz")
	for _, fn := range []struct{ name, decl string }{
		{"run", "export function run("},
		{"lineTotal", "function lineTotal("},
		{"tierFor", "export function tierFor("},
	} {
		f := functionNamed(t, doc, fn.name)
		assert.Equal(t, filepath.Join("src", "run.ts"), f.File, fn.name)
		assert.Equal(t, lineOf(t, string(ts), fn.decl), f.Line, "%s at its line of run.ts", fn.name)
		assert.Equal(t, "function.js", f.GeneratedFile, fn.name)
		assert.Equal(t, lineOf(t, string(bundle), "function "+fn.name+"("), f.GeneratedLine, "%s's line in the bundle kept", fn.name)
	}
	runtime := functionNamed(t, doc, "run_default")
	assert.Equal(t, filepath.Join("node_modules", "@shopify", "shopify_function", "run.ts"), runtime.File, "the Shopify runtime stays its own")
	// The bundle's module code runs every module's top level: one JS
	// function, one row, named by its first mapped position (esbuild's
	// own helpers before it map to nothing)...
	var evals []report.FunctionStats
	for _, f := range doc.Functions {
		if f.Name == "<eval>" {
			evals = append(evals, f)
		}
	}
	require.Len(t, evals, 1, "one <eval> row: %+v", evals)
	assert.Equal(t, filepath.Join("src", "run.ts"), evals[0].File)
	assert.Equal(t, 1, evals[0].Line)
	// ...whose lines keep the files they came from.
	lines := mappedReport(t, "--by", "line", "p.pb.gz")
	evalFiles := map[string]bool{}
	for _, l := range lines.Lines {
		if l.Function == "<eval>" {
			evalFiles[l.File] = true
		}
	}
	assert.Equal(t, map[string]bool{filepath.Join("src", "run.ts"): true, "function.js": true,
		filepath.Join("node_modules", "@shopify", "shopify_function", "index.ts"): true}, evalFiles)
	// Each line of the user's functions is a line of run.ts, and reads as
	// the bundle's line it came from (esbuild keeps the statements;
	// TypeScript's types and the bundle's exports go: the lines are
	// compared by their first two words before a colon or parenthesis).
	untyped := func(s string) []string {
		s = strings.TrimPrefix(s, "export ")
		f := strings.Fields(strings.FieldsFunc(s+" ", func(r rune) bool { return r == ':' || r == '(' })[0])
		return f[:min(2, len(f))]
	}
	user := 0
	for _, l := range lines.Lines {
		switch l.Function {
		case "run", "lineTotal", "tierFor":
			user++
			assert.Equal(t, filepath.Join("src", "run.ts"), l.File, "%+v", l)
			assert.Equal(t, "function.js", l.GeneratedFile, "%+v", l)
			assert.Equal(t, untyped(textLine(string(bundle), l.GeneratedLine)), untyped(textLine(string(ts), l.Line)), "%+v", l)
		}
	}
	assert.Greater(t, user, 5)

	list, err := exec.Command("go", "tool", "pprof", "-list", "^lineTotal$", "p.pb.gz").CombinedOutput()
	require.NoError(t, err, string(list))
	assert.Contains(t, string(list), "ROUTINE ======================== lineTotal in src/run.ts")
	assert.Contains(t, string(list), "function lineTotal(line: CartLine): number {", "pprof finds the TypeScript source")

	collapsed, err := os.ReadFile("p.txt")
	require.NoError(t, err)
	assert.Contains(t, string(collapsed), "lineTotal (src/run.ts:"+strconv.Itoa(lineOf(t, string(ts), "parseFloat"))+")")

	got = jsprof(t, "", "report", "--html", "p.html", "p.pb.gz")
	require.Equal(t, 0, got.code, got.stderr)
	page, err := os.ReadFile("p.html")
	require.NoError(t, err)
	assert.Contains(t, string(page), `data-file="src/run.ts"`, "the source view shows run.ts")
	assert.Contains(t, string(page), "source: sourcesContent of dist/function.js.map")
	assert.Contains(t, string(page), htmlEscape("const price: number = parseFloat(line.cost.amountPerQuantity.amount);"))

	// A stale map: the bundle rebuilt with a line more, the map not.
	require.NoError(t, os.WriteFile("dist/function.js", append([]byte("var built = Date.now();\n"), bundle...), 0o644))
	got = jsprof(t, "", "build", "--dynamic", "--plugin", filepath.Join(providers, "shopify_functions_javy_v4.wasm"), "dist/function.js", "-o", "dist/function.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	got = jsprof(t, "", "run", "-q", "--plugin", providers, "--input", "input.json", "-o", "stale.pb.gz", "dist/function.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	var said []string
	for _, l := range strings.Split(strings.TrimSpace(got.stderr), "\n") {
		if strings.Contains(l, "source map") {
			said = append(said, l)
		}
	}
	require.Len(t, said, 1, got.stderr)
	assert.Contains(t, said[0], "does not match function.js")
	assert.Contains(t, said[0], "showing bundle positions")
	stale := mappedReport(t, "--by", "function", "stale.pb.gz")
	f := functionNamed(t, stale, "lineTotal")
	assert.Equal(t, "function.js", f.File, "bundle positions, never wrong original ones")
	assert.Equal(t, lineOf(t, "var built = Date.now();\n"+string(bundle), "function lineTotal("), f.Line)
	assert.Empty(t, f.GeneratedFile)
}

// TestSourceMapEvalOneFunction: the bundle's module code is one JS
// function whose lines a map puts in three files; the function view shows
// it once, with the calls and executions it has without the map (the
// negative control: the map moves positions, never counts), and report
// --by function, the HTML report and go tool pprof -top agree.
func TestSourceMapEvalOneFunction(t *testing.T) {
	providers := fixtures.ProvidersDir(t)
	t.Chdir(shopifyProject(t, "linked"))
	bundle, err := os.ReadFile("dist/function.js")
	require.NoError(t, err)
	at := bytes.Index(bundle, []byte("//# sourceMappingURL="))
	require.Positive(t, at)
	require.NoError(t, os.MkdirAll("plain", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("plain", "function.js"), bundle[:at], 0o644))
	profiles := map[string]string{"dist/function.js": "mapped.pb.gz", "plain/function.js": "plain.pb.gz"}
	for js, out := range profiles {
		wasm := strings.TrimSuffix(js, ".js") + ".wasm"
		got := jsprof(t, "", "build", "--dynamic", "--plugin", filepath.Join(providers, "shopify_functions_javy_v4.wasm"), js, "-o", wasm)
		require.Equal(t, 0, got.code, got.stderr)
		got = jsprof(t, "", "run", "-q", "--plugin", providers, "--input", "input.json", "-o", out, wasm)
		require.Equal(t, 0, got.code, got.stderr)
	}
	evals := map[string][]report.FunctionStats{}
	calls := map[string]uint64{}
	for _, out := range profiles {
		for _, f := range mappedReport(t, "--by", "function", out).Functions {
			if f.Name == "<eval>" {
				evals[out] = append(evals[out], f)
			}
			calls[out] += f.Calls
		}
		require.Len(t, evals[out], 1, "%s: %+v", out, evals[out])
	}
	mapped, plain := evals["mapped.pb.gz"][0], evals["plain.pb.gz"][0]
	assert.Equal(t, "function.js", plain.File)
	assert.Equal(t, filepath.Join("src", "run.ts"), mapped.File)
	assert.Positive(t, plain.Calls)
	assert.Equal(t, plain.Calls, mapped.Calls, "the calls of <eval> with and without the map")
	assert.Equal(t, plain.Executions, mapped.Executions)
	assert.Equal(t, calls["plain.pb.gz"], calls["mapped.pb.gz"], "every function's calls")

	got := jsprof(t, "", "report", "--html", "p.html", "mapped.pb.gz")
	require.Equal(t, 0, got.code, got.stderr)
	page, err := os.ReadFile("p.html")
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(page), `<tr class="function" data-name="`+htmlEscape("<eval>")+`">`), "one <eval> row in the HTML")
	assert.Contains(t, string(page), htmlEscape("<eval> (src/run.ts:1)")+"</span>: ")
	assert.NotContains(t, string(page), htmlEscape("<eval> (function.js:1)"))
	flame := func(where string) string { return `["j","\u003ceval\u003e","` + where + `"]` }
	assert.Equal(t, 1, strings.Count(string(page), flame("src/run.ts:1")), "one <eval> frame in the flame graph")
	assert.NotContains(t, string(page), flame("function.js:1"))
	assert.NotContains(t, string(page), flame(filepath.Join("node_modules", "@shopify", "shopify_function", "index.ts")+":5"))

	top, err := exec.Command("go", "tool", "pprof", "-top", "-nodefraction=0", "-sample_index=calls", "mapped.pb.gz").CombinedOutput()
	require.NoError(t, err, string(top))
	var rows []string
	for _, l := range strings.Split(string(top), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[len(f)-1] == "<eval>" {
			rows = append(rows, l)
		}
	}
	require.Len(t, rows, 1, string(top))
	assert.Equal(t, strconv.FormatUint(plain.Calls, 10), strings.Fields(rows[0])[0], "pprof's flat calls of <eval>")
}

// TestSourceMapMinified: a plain Javy program minified by esbuild (its
// functions renamed r and u, on one line) is profiled under its own
// names, at its lines; with the map inline the same; and report
// --source-map names a profile run without the map's comment.
func TestSourceMapMinified(t *testing.T) {
	t.Parallel()
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	src, err := os.ReadFile(filepath.Join("testdata", "sourcemap", "app.js"))
	require.NoError(t, err)
	for _, tc := range []struct{ name, sourcemap string }{{"map file", "linked"}, {"inline map", "inline"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			copyFile(t, filepath.Join("testdata", "sourcemap", "app.js"), filepath.Join(dir, "app.js"))
			esbuild(t, dir, "app.js", "--bundle", "--format=esm", "--minify", "--outfile=dist/app.js", "--sourcemap="+tc.sourcemap)
			min, err := os.ReadFile(filepath.Join(dir, "dist", "app.js"))
			require.NoError(t, err)
			require.NotContains(t, string(min), "fibonacci", "minified")
			wasm, prof := filepath.Join(dir, "dist", "app.wasm"), filepath.Join(dir, "p.pb.gz")
			got := jsprof(t, "", "build", "--plugin", plugin, filepath.Join(dir, "dist", "app.js"), "-o", wasm)
			require.Equal(t, 0, got.code, got.stderr)
			got = jsprof(t, "", "run", "-q", "-o", prof, wasm)
			require.Equal(t, 0, got.code, got.stderr)
			require.Equal(t, "987 8995500500\n", got.stdout)
			doc := mappedReport(t, "--by", "function", prof)
			for _, fn := range []struct{ name, decl string }{{"fibonacci", "function fibonacci("}, {"sumOfSquares", "function sumOfSquares("}} {
				f := functionNamed(t, doc, fn.name)
				assert.Equal(t, filepath.Join(dir, "app.js"), f.File)
				assert.Equal(t, lineOf(t, string(src), fn.decl), f.Line, fn.name)
				assert.Equal(t, 1, f.GeneratedLine, "the bundle is one line")
			}
			lines := mappedReport(t, "--by", "line", prof)
			hottest := lines.Lines[0]
			for _, l := range lines.Lines {
				if l.SelfWasmInstructions > hottest.SelfWasmInstructions {
					hottest = l
				}
			}
			assert.Equal(t, lineOf(t, string(src), "total += i * i;"), hottest.Line, "the hottest line by its own cost: %+v", hottest)
		})
	}

	// A profile of the minified program run without its comment names
	// its positions after --source-map given to report.
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "sourcemap", "app.js"), filepath.Join(dir, "app.js"))
	esbuild(t, dir, "app.js", "--bundle", "--format=esm", "--minify", "--outfile=dist/app.js", "--sourcemap=linked")
	js := filepath.Join(dir, "dist", "app.js")
	min, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(js, []byte(strings.Replace(string(min), "//# sourceMappingURL=app.js.map", "", 1)), 0o644))
	wasm, prof := filepath.Join(dir, "dist", "app.wasm"), filepath.Join(dir, "dist", "p.pb.gz")
	got := jsprof(t, "", "build", "--plugin", plugin, js, "-o", wasm)
	require.Equal(t, 0, got.code, got.stderr)
	got = jsprof(t, "", "run", "-q", "-o", prof, wasm)
	require.Equal(t, 0, got.code, got.stderr)
	before := mappedReport(t, "--by", "function", prof)
	var names []string
	for _, f := range before.Functions {
		names = append(names, f.Name)
	}
	assert.NotContains(t, names, "fibonacci", "without the map, the minifier's names")
	doc := mappedReport(t, "--by", "function", "--source-map", js+".map", prof)
	f := functionNamed(t, doc, "fibonacci")
	assert.Equal(t, lineOf(t, string(src), "function fibonacci("), f.Line)
	assert.Equal(t, "app.js", f.GeneratedFile)
}

// TestSourceMapBuildError: a syntax error in a bundle is reported at its
// original position, the bundle's beside it.
func TestSourceMapBuildError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "calc.ts"), []byte("// calc\n\nexport function twice(x: number): number {\n  return x * 2;\n}\n\nconsole.log(twice(21));\n"), 0o644))
	esbuild(t, dir, "src/calc.ts", "--bundle", "--format=esm", "--outfile=dist/calc.js", "--sourcemap")
	js := filepath.Join(dir, "dist", "calc.js")
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	broken := strings.Replace(string(b), "return x * 2;", "return x * ;", 1)
	require.NotEqual(t, string(b), broken)
	require.NoError(t, os.WriteFile(js, []byte(broken), 0o644))
	got := jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), js, "-o", filepath.Join(dir, "calc.wasm"))
	assert.Equal(t, cli.ExitFailure, got.code)
	line := lineOf(t, broken, "return x * ;")
	assert.Contains(t, got.stderr, "at "+filepath.Join(dir, "src", "calc.ts")+":4:")
	assert.Contains(t, got.stderr, "(calc.js:"+strconv.Itoa(line)+":")
	assert.NotContains(t, got.stderr, "function.mjs")
}

// TestSourceMapCompareDiff: jsprof compare of a minified bundle on two
// Javy plugins aligns the functions under their original names and lines
// (the map its comment names), and jsprof diff --source-map names two
// profiles made without it alike.
func TestSourceMapCompareDiff(t *testing.T) {
	t.Parallel()
	plugins := []string{fixtures.EnginePath(t, "javy-plugin-1.1.0"), fixtures.EnginePath(t, "javy-plugin-1.7.0")}
	src, err := os.ReadFile(filepath.Join("testdata", "sourcemap", "app.js"))
	require.NoError(t, err)
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "sourcemap", "app.js"), filepath.Join(dir, "app.js"))
	esbuild(t, dir, "app.js", "--bundle", "--format=esm", "--minify", "--outfile=dist/app.js", "--sourcemap")
	js := filepath.Join(dir, "dist", "app.js")

	type diffDoc struct {
		Functions []struct {
			Name, File string
			Line       int
		} `json:"functions"`
	}
	want := map[string]int{"fibonacci": lineOf(t, string(src), "function fibonacci("), "sumOfSquares": lineOf(t, string(src), "function sumOfSquares(")}
	check := func(t *testing.T, out string) {
		t.Helper()
		var doc diffDoc
		require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
		found := map[string]int{}
		for _, f := range doc.Functions {
			if _, ok := want[f.Name]; ok {
				found[f.Name] = f.Line
				assert.Equal(t, filepath.Join(dir, "app.js"), f.File)
			}
		}
		assert.Equal(t, want, found, "both engines' functions, by their original names and lines")
	}
	outDir := filepath.Join(dir, "out")
	got := jsprof(t, "", "compare", "--json", "--out-dir", outDir, "--plugin", plugins[0], "--plugin", plugins[1], js)
	require.Equal(t, 0, got.code, got.stderr)
	check(t, got.stdout)

	// The profiles compare kept are named already: diff takes them as
	// they are. Profiles of the bundle without its comment are named by
	// diff --source-map.
	plain := filepath.Join(dir, "plain.js")
	min, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(plain, []byte(strings.Replace(string(min), "//# sourceMappingURL=app.js.map", "", 1)), 0o644))
	var profs []string
	for i, p := range plugins {
		wasm, prof := filepath.Join(dir, "p"+strconv.Itoa(i)+".wasm"), filepath.Join(dir, "p"+strconv.Itoa(i)+".pb.gz")
		require.Equal(t, 0, jsprof(t, "", "build", "--plugin", p, plain, "-o", wasm).code)
		got := jsprof(t, "", "run", "-q", "-o", prof, wasm)
		require.Equal(t, 0, got.code, got.stderr)
		profs = append(profs, prof)
	}
	got = jsprof(t, "", "diff", "--json", profs[0], profs[1])
	require.Equal(t, 0, got.code, got.stderr)
	assert.NotContains(t, got.stdout, `"fibonacci"`, "without the map, the minifier's names")
	got = jsprof(t, "", "diff", "--json", "--source-map", js+".map", profs[0], profs[1])
	require.Equal(t, 0, got.code, got.stderr)
	check(t, got.stdout)
}

// TestSourceMapBesideTheRecordedJS: docs/shopify-functions.md's flow
// builds the bundle dist/function.js into a module in the app's folder;
// the run finds the bundle's map beside the JS the build recorded (not
// beside the module) and names the TypeScript without --source. Without
// the map, one warning names the fix, and it is not said before an
// unrelated error (a provider not given).
func TestSourceMapBesideTheRecordedJS(t *testing.T) {
	providers := fixtures.ProvidersDir(t)
	dir := shopifyProject(t, "linked")
	t.Chdir(dir)
	got := jsprof(t, "", "build", "--dynamic", "--plugin", filepath.Join(providers, "shopify_functions_javy_v4.wasm"), "dist/function.js", "-o", "function.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	got = jsprof(t, "", "run", "-q", "--plugin", providers, "--input", "input.json", "-o", "p.pb.gz", "function.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	assert.NotContains(t, got.stderr, "source map")
	assert.Equal(t, filepath.Join("src", "run.ts"), functionNamed(t, mappedReport(t, "--by", "function", "p.pb.gz"), "lineTotal").File)

	require.NoError(t, os.Remove(filepath.Join("dist", "function.js.map")))
	got = jsprof(t, "", "run", "-q", "--input", "input.json", "-o", "p.pb.gz", "function.wasm")
	require.Equal(t, cli.ExitFailure, got.code, got.stderr)
	assert.NotContains(t, got.stderr, "source map", "not said before an error that stops the run")
	got = jsprof(t, "", "run", "-q", "--plugin", providers, "--input", "input.json", "-o", "p.pb.gz", "function.wasm")
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, 1, strings.Count(got.stderr, "source map"), got.stderr)
	assert.Contains(t, got.stderr, "jsprof: warning: source map: function.js.map (named by function.js) is not in dist/: give the bundle with --source FILE, or the map with --source-map FILE; showing bundle positions")
	assert.Equal(t, "function.js", functionNamed(t, mappedReport(t, "--by", "function", "p.pb.gz"), "lineTotal").File, "negative control: without the map, the bundle's positions")
}
