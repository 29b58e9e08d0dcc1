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
)

// formatFunction is a JS function of a report.
type formatFunction struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Line  int    `json:"line"`
	Calls uint64 `json:"calls"`
}

// runFormat builds a program for a provider, profiles it and returns the
// report's JS functions and jsprof's stderr.
func runFormat(t *testing.T, provider, src string) ([]formatFunction, string) {
	t.Helper()
	dir := fixtures.ProvidersDir(t)
	module := buildFunction(t, provider, src)
	doc := filepath.Join(t.TempDir(), "report.json")
	got := jsprof(t, "", "run", "-q", "--plugin", dir, "--input", "testdata/shopify/input.json", "--report-json", doc, module)
	// fib and the fixtures are no Shopify Functions: they write no
	// output and exceed the instruction limit (exit code 1), and the
	// providers run no event loop, so generators.js's pending promises
	// end it with a trap (134) once its async functions have started.
	// jsprof writes the report either way.
	require.Contains(t, []int{0, 1, 134}, got.code, got.stderr)
	assert.NotContains(t, got.stderr, "Uncaught")
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	var report struct {
		Functions []formatFunction `json:"functions"`
	}
	require.NoError(t, json.Unmarshal(b, &report))
	var js []formatFunction
	for _, f := range report.Functions {
		if f.Kind == "js" {
			js = append(js, f)
		}
	}
	return js, got.stderr
}

// TestBytecodeFormatsOnProviders: on function-runner's providers whose
// serialization jsprof once could not read (Bellard 2023-12-09, version 2;
// QuickJS-NG v0.15-v0.16, version 0x1a), fib is named at line 1 with its
// 21891 calls, and the fixture programs' closures, classes, generators
// and async functions are named at their lines.
func TestBytecodeFormatsOnProviders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("profiles real providers")
	}
	for _, provider := range []string{"javy_quickjs_provider_v1", "shopify_functions_javy_v4"} {
		t.Run(provider, func(t *testing.T) {
			fns, stderr := runFormat(t, provider, fixtures.Path("js", "fib.js"))
			assert.NotContains(t, stderr, "serialization version")
			assert.NotContains(t, stderr, "naming JS functions")
			byName := map[string]formatFunction{}
			for _, f := range fns {
				assert.NotContains(t, f.Name, "anonymous@", "a function left unnamed")
				byName[f.Name] = f
			}
			require.Contains(t, byName, "fib")
			assert.Equal(t, 1, byName["fib"].Line)
			assert.Equal(t, uint64(21891), byName["fib"].Calls)

			fns, _ = runFormat(t, provider, fixtures.Path("js", "classes.js"))
			checkFormatNames(t, fns, map[string]int{
				"Shape": 8, "get Shape.name": 12, "Shape.describe": 21, "Rect.area": 36, "Square": 45,
				"set Square.side": 51, "Circle.area": 65, "makeCounter": 85, "reset": 95, "memoize": 111,
				"wrapped": 114, "slowSquare": 125, "Stack.push": 139, "Stack.[Symbol.iterator]": 149,
			})

			src := fixtures.Path("js", "generators.js")
			if provider == "javy_quickjs_provider_v1" {
				// Bellard's QuickJS before 2024 has no top-level await:
				// the awaiting tail runs in an async arrow function
				// started on its first line, which moves no line.
				b, err := os.ReadFile(src)
				require.NoError(t, err)
				s := strings.Replace(string(b), "const total = await", "(async () => { const total = await", 1) + "})();\n"
				src = filepath.Join(t.TempDir(), "generators.js")
				require.NoError(t, os.WriteFile(src, []byte(s), 0o644))
			}
			fns, _ = runFormat(t, provider, src)
			checkFormatNames(t, fns, map[string]int{
				"check": 2, "range": 6, "fibs": 10, "take": 19, "flatten": 27, "withReturn": 34,
				"delay": 55, "square": 59, "sumSquares": 64,
			})
		})
	}
}

// checkFormatNames: each named function ran, at its line.
func checkFormatNames(t *testing.T, fns []formatFunction, want map[string]int) {
	t.Helper()
	got := map[string]int{}
	for _, f := range fns {
		got[f.Name] = f.Line
	}
	for name, line := range want {
		if assert.Contains(t, got, name) {
			assert.Equal(t, line, got[name], name)
		}
	}
}
