package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/compare"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/view/report"
)

// compareJSON is what the tests read of jsprof compare --json.
type compareJSON struct {
	Base struct {
		Profile string `json:"profile"`
		Total   uint64 `json:"total_wasm_instructions"`
		Engine  struct {
			Family string `json:"family"`
		} `json:"engine"`
	} `json:"base"`
	New struct {
		Profile string `json:"profile"`
		Total   uint64 `json:"total_wasm_instructions"`
		Engine  struct {
			Family string `json:"family"`
		} `json:"engine"`
	} `json:"new"`
	Delta int64 `json:"delta_wasm_instructions"`
	// What native functions ran themselves moved too: it is neither an
	// opcode's nor a bucket's.
	DeltaNativeWasmInstructions int64 `json:"delta_native_wasm_instructions"`
	Opcodes                     []struct {
		Name  string `json:"name"`
		Delta int64  `json:"delta_wasm_instructions"`
	} `json:"opcodes"`
	Buckets []struct {
		Delta int64 `json:"delta_wasm_instructions"`
	} `json:"buckets"`
	Summary string `json:"summary"`
}

// TestCompareFixturePrograms: every JS fixture program, built with the two
// Javy plugins (a patched Bellard QuickJS of early 2024, QuickJS-NG
// v0.10): the same output from both, and a diff whose totals are the two
// profiles' totals.
func TestCompareFixturePrograms(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs real engines")
	}
	base, new := fixtures.EnginePath(t, "javy-plugin-1.1.0"), fixtures.EnginePath(t, "javy-plugin-1.7.0")
	for src, want := range jsPrograms(t) {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := t.TempDir()
			got := jsprof(t, "", "compare", "--cache-dir", fixtures.CompileCacheDir(),
				"--plugin", base, "--plugin", new, "--json", "--out-dir", dir, src)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, fmt.Sprintf("jsprof: compare: Wasm instructions counted as fuel (--cost fuel: wasmtime's fuel, as function-runner counts)\n"+
				"jsprof: both engines printed the same output (%s) and exited with 0\n", compare.LineCount([]byte(want))), got.stderr)
			for _, side := range []string{"base", "new"} {
				out, err := os.ReadFile(filepath.Join(dir, side+".stdout"))
				require.NoError(t, err)
				assert.Equal(t, want, string(out), "%s engine's output", side)
			}

			var df compareJSON
			require.NoError(t, json.Unmarshal([]byte(got.stdout), &df))
			baseProf, err := report.ReadFile(filepath.Join(dir, "base.pb.gz"))
			require.NoError(t, err)
			newProf, err := report.ReadFile(filepath.Join(dir, "new.pb.gz"))
			require.NoError(t, err)
			assert.Equal(t, baseProf.TotalWasmInstructions, df.Base.Total, "base total is the base profile's")
			assert.Equal(t, newProf.TotalWasmInstructions, df.New.Total, "new total is the new profile's")
			assert.Equal(t, int64(df.New.Total)-int64(df.Base.Total), df.Delta)
			var sum int64
			for _, o := range df.Opcodes {
				sum += o.Delta
			}
			for _, b := range df.Buckets {
				sum += b.Delta
			}
			sum += df.DeltaNativeWasmInstructions
			assert.Equal(t, df.Delta, sum, "the opcodes', natives' and buckets' changes add up to the total change")
			assert.Equal(t, "quickjs", df.Base.Engine.Family)
			assert.Equal(t, "quickjs-ng", df.New.Engine.Family)
			assert.Equal(t, "javy-plugin-1.1.0.wasm", df.Base.Profile)
			assert.Equal(t, "javy-plugin-1.7.0.wasm", df.New.Profile)
			assert.NotEmpty(t, df.Summary)
			assert.Greater(t, baseProf.Executions, uint64(0))
		})
	}
}

// fakeRunner stands for jsprof run: it copies a prepared profile and
// prints what the test says each engine prints.
func fakeRunner(t *testing.T, profiles map[string]string, stdout map[string]string, codes map[string]int) compare.Runner {
	return func(ctx context.Context, job profiler.Job) (*profiler.Done, error) {
		side := strings.TrimSuffix(job.Guest.Name, ".wasm")
		p := readProfile(t, profiles[side])
		fmt.Fprint(job.Guest.Stdout, stdout[side])
		fmt.Fprintf(job.Guest.Stdout, "args=%v\n", job.Guest.Args)
		tables, err := report.FromProfile(p) // as Finish builds them
		require.NoError(t, err)
		return &profiler.Done{ExitCode: codes[side], Outcome: &profiler.Outcome{Profile: p, Tables: tables}}, nil
	}
}

func TestCompareBehaviour(t *testing.T) {
	const fuelLine = "jsprof: compare: Wasm instructions counted as fuel (--cost fuel: wasmtime's fuel, as function-runner counts)\n"
	plugins := []string{"--plugin", fixtures.EnginePath(t, "javy-plugin-1.1.0"), "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0")}
	profiles := map[string]string{"base": fixtureProfile("fib-base.pb.gz"), "new": fixtureProfile("fib-new.pb.gz")}
	src := fixtures.Path("js", "fib.js")
	tests := []struct {
		name   string
		stdout map[string]string
		codes  map[string]int
		code   int
		stderr string
	}{
		{"alike", map[string]string{"base": "a\nb\n", "new": "a\nb\n"}, nil, 0,
			fuelLine + "jsprof: both engines printed the same output (3 lines) and exited with 0\n"},
		{"outputs differ", map[string]string{"base": "a\nb\n", "new": "a\nc\n"}, nil, cli.ExitFailure,
			fuelLine + `jsprof: compare: the engines behaved differently: the outputs differ from line 2: the base printed "b", the new "c"` + "\n"},
		{"exit codes differ", nil, map[string]int{"new": 134}, cli.ExitFailure,
			fuelLine + "jsprof: compare: the engines behaved differently: the base exited with 0, the new with 134\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			args := append(append([]string{"--cache-dir", fixtures.CompileCacheDir(), "--csv"}, plugins...), src, "--", "x", "--y")
			code := compareWith(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errOut}, fakeRunner(t, profiles, tt.stdout, tt.codes))
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.stderr, errOut.String())
			assert.True(t, strings.HasPrefix(out.String(), "kind,name,"), "the diff is printed however the engines behaved:\n%s", out.String())
			assert.Contains(t, out.String(), "\ntotal,total,,,,,,21893,21893,229990,229991,16250072,15308342,-941730,,,,,\n")
		})
	}
}

func TestCompareCommandErrors(t *testing.T) {
	src := fixtures.Path("js", "fib.js")
	broken := filepath.Join(t.TempDir(), "broken.js")
	require.NoError(t, os.WriteFile(broken, []byte("function f( {\n"), 0o644))
	tests := []struct {
		name    string
		args    []string
		code    int
		want    string
		engines bool
	}{
		{"no plugin", []string{src}, cli.ExitUsage, "want two --plugin, the base and the new, have 0", false},
		{"no JS", []string{"--plugin", "a.wasm", "--plugin", "b.wasm"}, cli.ExitUsage, "want one JS file", false},
		{"guest args without --", []string{"--plugin", "a.wasm", "--plugin", "b.wasm", src, "arg"}, cli.ExitUsage, "guest arguments go after --", false},
		{"missing plugin", []string{"--plugin", "nope.wasm", "--plugin", "b.wasm", src}, cli.ExitFailure, "nope.wasm", false},
		{"missing JS", []string{"--plugin", "a.wasm", "--plugin", "b.wasm", "nope.js"}, cli.ExitFailure, "nope.js", false},
		{"bad view", []string{"--by", "lines", "--plugin", "a.wasm", "--plugin", "b.wasm", src}, cli.ExitUsage, "compare: --by lines: want opcode, function, line or wasm", false},
		{"syntax error", nil, cli.ExitFailure, "broken.js (with ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.engines {
				args = []string{"--plugin", fixtures.EnginePath(t, "javy-plugin-1.1.0"), "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), broken}
			}
			got := jsprof(t, "", append([]string{"compare", "--cache-dir", ""}, args...)...)
			assert.Equal(t, tt.code, got.code, got.stderr)
			assert.Contains(t, got.stderr, tt.want)
		})
	}
}
