package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// TestDeterminism: two runs of the same static module give identical
// counts — the same cost report, byte for byte, and the same profile apart
// from its timestamps — for every fixture program, with both Javy plugins,
// in exact and in sampling mode. (Sampling is driven by the instruction
// counter, not a clock, so its samples repeat too.)
//
// A program that reads the clock (Date.now(), new Date()) is not covered:
// jsprof run gives the guest the host's real clocks, and what the engine
// executes depends on the time it reads (formatting a date, a loop that
// waits). TestDeterministicClocks shows that the runner's Deterministic
// option makes those repeat too. Math.random repeats only under
// --deterministic as well: the 1.7.0 plugin seeds it from env.random_seed,
// which jsprof provides, with a fixed seed only then (TestMathRandom).
func TestDeterminism(t *testing.T) {
	programs, err := filepath.Glob(fixtures.Path("js", "*.js"))
	require.NoError(t, err)
	require.NotEmpty(t, programs)
	// Program by program, so that the two subtests running at once on a
	// fresh machine compile two engines side by side, not one twice.
	for _, src := range programs {
		for _, plugin := range javyPlugins {
			pluginPath := fixtures.EnginePath(t, plugin)
			name := strings.TrimSuffix(filepath.Base(src), ".js")
			t.Run(plugin+"/"+name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				module := filepath.Join(dir, name+".wasm")
				built := jsprof(t, "", "build", "--plugin", pluginPath, src, "-o", module)
				require.Equal(t, 0, built.code, built.stderr)

				type outputs struct {
					stdout, report, collapsed string
					profile                   *profile.Profile
				}
				run := func(i int, mode string) outputs {
					// The same file names in another directory: the report
					// names its profile.
					sub := filepath.Join(dir, string(rune('a'+i)))
					require.NoError(t, os.MkdirAll(sub, 0o755))
					p := filepath.Join(sub, mode)
					args := []string{"run", "--mode", mode, "-o", p + ".pb.gz", "--collapsed", p + ".collapsed"}
					if mode == jsprofile.ModeExact {
						args = append(args, "--report-json", p+".json")
					} else {
						args = append(args, "--sample-every", "20000") // the programs are short
					}
					got := jsprof(t, "", append(args, module)...)
					require.Equal(t, 0, got.code, got.stderr)
					o := outputs{stdout: got.stdout, profile: readProfile(t, p+".pb.gz")}
					o.collapsed = readFileText(t, p+".collapsed")
					if mode == jsprofile.ModeExact {
						o.report = readFileText(t, p+".json")
					}
					return o
				}
				for _, mode := range []string{jsprofile.ModeExact, jsprofile.ModeSample} {
					a, b := run(0, mode), run(1, mode)
					assert.Equal(t, a.stdout, b.stdout)
					assert.Equal(t, a.report, b.report, "%s: cost report", mode)
					assert.Equal(t, a.collapsed, b.collapsed, "%s: collapsed stacks", mode)
					assert.Equal(t, untimed(a.profile), untimed(b.profile), "%s: profile apart from its timestamps", mode)
					assert.NotZero(t, sampleTotal(a.profile))
				}
			})
		}
	}
}

// TestProfileWithoutTables: a run that writes no report skips the cost
// tables (profiler.Run.ProfileOnly) and writes the same profile as one
// that writes them.
func TestProfileWithoutTables(t *testing.T) {
	dir := t.TempDir()
	module := filepath.Join(dir, "fib.wasm")
	built := jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), fixtures.Path("js", "fib.js"), "-o", module)
	require.Equal(t, 0, built.code, built.stderr)
	run := func(name string, extra ...string) *profile.Profile {
		p := filepath.Join(dir, name+".pb.gz")
		got := jsprof(t, "", append(append([]string{"run", "-q", "-o", p}, extra...), module)...)
		require.Equal(t, 0, got.code, got.stderr)
		return readProfile(t, p)
	}
	with := run("with", "--report-json", filepath.Join(dir, "report.json"))
	without := run("without")
	assert.Equal(t, untimed(with), untimed(without))
	assert.NotZero(t, sampleTotal(without))
	assert.Contains(t, readFileText(t, filepath.Join(dir, "report.json")), `"total_wasm_instructions"`)
}

// TestDeterministicClocks: a program that reads the clock executes the
// same instructions on every run once the guest's clocks are wazero's
// deterministic ones (runner.Options.Deterministic; jsprof run does not
// set it: the guest sees the real time).
func TestDeterministicClocks(t *testing.T) {
	t.Parallel()
	wasm := buildSource(t, "javy-plugin-1.7.0", readFileText(t, "testdata/clock.js"))
	_, exact := newGuests(t, wasm, meter.Options{Checkpoints: true})
	_, first := exact.run(t)
	_, second := exact.run(t)
	assert.Equal(t, first.TotalInstructions, second.TotalInstructions)
	assert.Equal(t, first.Functions, second.Functions)

	// The negative control: with the host's clocks the program spins a
	// different number of times, so the clock does reach the count.
	exact.realClocks = true
	_, real1 := exact.run(t)
	_, real2 := exact.run(t)
	assert.NotEqual(t, real1.TotalInstructions, real2.TotalInstructions, "real clocks: counts vary from run to run")
	assert.NotEqual(t, first.TotalInstructions, real1.TotalInstructions)
}

// untimed is the profile's text with its start time and duration zeroed.
func untimed(p *profile.Profile) string {
	c := p.Copy()
	c.TimeNanos, c.DurationNanos = 0, 0
	return c.String()
}

func readFileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// buildSource builds JS source into a static module with a Javy plugin.
func buildSource(tb testing.TB, plugin, src string) []byte {
	tb.Helper()
	dir := tb.TempDir()
	in, out := filepath.Join(dir, "index.js"), filepath.Join(dir, "index.wasm")
	require.NoError(tb, os.WriteFile(in, []byte(src), 0o644))
	var stderr strings.Builder
	code := Main(context.Background(), []string{"build", "--cache-dir", fixtures.CompileCacheDir(),
		"--plugin", fixtures.EnginePath(tb, plugin), in, "-o", out}, stdio{in: strings.NewReader(""), out: &stderr, err: &stderr})
	require.Equal(tb, 0, code, stderr.String())
	b, err := os.ReadFile(out)
	require.NoError(tb, err)
	return b
}

// TestMathRandom: Math.random works on both plugins (the 1.7.0 plugin
// seeds it from its host's env.random_seed), and --deterministic fixes it
// like the clocks.
func TestMathRandom(t *testing.T) {
	for _, plugin := range javyPlugins {
		t.Run(plugin, func(t *testing.T) {
			dir := t.TempDir()
			module := filepath.Join(dir, "random.wasm")
			require.Equal(t, 0, jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, plugin), "testdata/random.js", "-o", module).code)
			totals := map[int64]bool{}
			for i := 0; i < 2; i++ {
				p := filepath.Join(dir, fmt.Sprint(i, ".pb.gz"))
				got := jsprof(t, "", "run", "--deterministic", "-o", p, module)
				require.Equal(t, 0, got.code, got.stderr)
				assert.Equal(t, "random ok\n", got.stdout)
				totals[sampleTotal(readProfile(t, p))] = true
			}
			assert.Len(t, totals, 1, "the same instructions on every deterministic run")
		})
	}
}
