package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// buildJS builds a JS file into a static module with the newer plugin.
func buildJS(t *testing.T, src string) string {
	t.Helper()
	module := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".js")+".wasm")
	got := jsprof(t, "", "build", "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), src, "-o", module)
	require.Equal(t, 0, got.code, got.stderr)
	return module
}

// TestGuestFaultsStillWriteTheProfile: whatever ends the guest, the profile
// is written whole, jsprof exits with a documented code and says why in
// one line.
func TestGuestFaultsStillWriteTheProfile(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		flags    []string
		code     int
		stderr   string
		lastLine string
	}{
		{"uncaught JS exception", "testdata/throws.js", nil, 134, "guest trapped: wasm error: unreachable", ""},
		{"stack exhaustion", "testdata/deep.js", nil, 134, "guest trapped: wasm error:", ""},
		{"instruction limit", "testdata/forever.js", []string{"--max-instructions", "3000000"}, cli.ExitLimit, "stopped: the guest reached the instruction limit (3000000 Wasm instructions)", ""},
		{"timeout", "testdata/forever.js", []string{"--timeout", "300ms"}, cli.ExitLimit, "stopped after --timeout 300ms", ""},
		{"instruction limit, sampling", "testdata/forever.js", []string{"--mode", "sample", "--max-instructions", "3000000"}, cli.ExitLimit, "instruction limit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			module := buildJS(t, tt.src)
			out := filepath.Join(t.TempDir(), "p.pb.gz")
			got := jsprof(t, "", append(append([]string{"run", "-o", out}, tt.flags...), module)...)
			assert.Equal(t, tt.code, got.code)
			lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
			require.GreaterOrEqual(t, len(lines), 2, got.stderr)
			assert.Contains(t, lines[len(lines)-2], tt.stderr, "jsprof's own line comes last but the profile's: %q", got.stderr)
			assert.True(t, strings.HasPrefix(lines[len(lines)-2], "jsprof: "))
			assert.True(t, strings.HasPrefix(lines[len(lines)-1], "jsprof: profile written to "+out), lines[len(lines)-1])

			p := readProfile(t, out)
			assert.NotEmpty(t, p.Sample)
			hasTrap := false
			for _, c := range p.Comments {
				hasTrap = hasTrap || strings.HasPrefix(c, "jsprof.trap=")
			}
			assert.True(t, hasTrap, "the profile says how the guest ended")
			assert.Contains(t, p.Comments, fmt.Sprintf("jsprof.exit_code=%d", tt.code), "the profile records jsprof's exit code")
			if strings.Contains(tt.name, "instruction limit") && !strings.Contains(tt.name, "sampling") {
				total := sampleTotal(p)
				assert.InDelta(t, 3000000, total, 200, "stopped within a segment of the limit")
			}
		})
	}
}

// jsprofBinary builds the jsprof binary into the benchmark's directory
// (skipped with -short) and returns its path: a benchmark that measures
// the process users run measures that binary, not this test's.
func jsprofBinary(b *testing.B) string {
	b.Helper()
	if testing.Short() {
		b.Skip("builds the jsprof binary")
	}
	bin := filepath.Join(b.TempDir(), "jsprof")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(b, err, string(out))
	return bin
}

// jsprofProcess returns an executable that runs this test binary as
// jsprof (TestMain's asProcessEnv), for tests that need a process of its
// own (signals, a broken pipe, processes sharing a cache) and for scripts
// that call jsprof. It is jsprof's main, with nothing built: building the
// binary again cost every such test a link of its own.
func jsprofProcess(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	script := filepath.Join(t.TempDir(), "jsprof")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"+asProcessEnv+"=jsprof exec '"+exe+"' \"$@\"\n"), 0o755))
	return script
}

// TestInterruptWritesTheProfile sends SIGINT, SIGTERM, SIGHUP (a closed
// terminal) and SIGQUIT to a jsprof process running a guest that never
// ends. (SIGHUP and SIGQUIT killed it with no profile and its temporary
// files left.)
func TestInterruptWritesTheProfile(t *testing.T) {
	bin := jsprofProcess(t)
	module := buildJS(t, "testdata/forever.js")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			prof := filepath.Join(t.TempDir(), "p.pb.gz")
			cmd := exec.Command(bin, "run", "--progress", "50ms", "--cache-dir", fixtures.CompileCacheDir(), "-o", prof, module)
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			// Signal once the guest runs (its first progress line), however
			// long compiling took on a loaded machine.
			lines := bufio.NewScanner(stderr)
			var rest []string
			for lines.Scan() {
				if guestRuns(lines.Text()) {
					break
				}
				if !strings.HasPrefix(lines.Text(), "jsprof: running:") {
					rest = append(rest, lines.Text())
				}
			}
			require.NoError(t, cmd.Process.Signal(sig))
			for lines.Scan() {
				if !strings.HasPrefix(lines.Text(), "jsprof: running:") {
					rest = append(rest, lines.Text())
				}
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, 128+int(sig), exit.ExitCode())
			// The interruption is the last word: no closing "profile
			// written" line.
			assert.Equal(t, []string{"jsprof: interrupted by " + sig.String()}, rest)
			p := readProfile(t, prof)
			assert.Positive(t, sampleTotal(p))
			assert.Contains(t, p.Comments, fmt.Sprintf("jsprof.exit_code=%d", 128+int(sig)), "the profile records jsprof's exit code")
			_, err = os.Stat(prof)
			require.NoError(t, err)
			matches, _ := filepath.Glob(filepath.Join(filepath.Dir(prof), ".jsprof-*"))
			assert.Empty(t, matches, "no temporary file left behind")
		})
	}
}

// TestProgressLines: long runs report progress on stderr, in whole jsprof
// lines, and -q silences them.
func TestProgressLines(t *testing.T) {
	module := buildJS(t, "testdata/forever.js")
	got := jsprof(t, "", "run", "--progress", "100ms", "--timeout", "700ms", module)
	assert.Equal(t, cli.ExitLimit, got.code)
	lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
	require.GreaterOrEqual(t, len(lines), 4, got.stderr)
	assert.Regexp(t, `^jsprof: running: [0-9.]+[kMG]? Wasm instructions, [0-9.]+m?s$`, lines[len(lines)-3])
	assert.Equal(t, "jsprof: stopped after --timeout 700ms", lines[len(lines)-2])
	assert.True(t, strings.HasPrefix(lines[len(lines)-1], "jsprof: profile written to "), lines[len(lines)-1])

	quiet := jsprof(t, "", "run", "-q", "--progress", "100ms", "--timeout", "500ms", module)
	assert.Equal(t, "jsprof: stopped after --timeout 500ms\n", quiet.stderr)
}

// TestFinishInterrupted: once the guest has ended, an interrupt skips
// naming, the one step of building the profile whose cost the
// measurements do not bound. Finish returns a profile that reads back,
// its functions named by address, and says why; without the interrupt
// the same run is named.
func TestFinishInterrupted(t *testing.T) {
	wasm, err := os.ReadFile(buildJS(t, fixtures.Path("js", "fib.js")))
	require.NoError(t, err)
	stopped, cancel := context.WithCancelCause(context.Background())
	cancel(interrupted{Sig: syscall.SIGINT})
	tests := []struct {
		name    string
		ctx     context.Context
		fib     string // the JS frame fib gets
		warning string // "" for none
	}{
		{"not interrupted", context.Background(), "fib", ""},
		{"interrupted", stopped, "bytecode@0x", "interrupted: JS functions are named by their bytecode address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sess, err := profiler.Prepare(context.Background(), "fib.wasm", wasm, nil, profiler.Options{})
			require.NoError(t, err)
			var stdout strings.Builder
			opts := runner.Options{Name: "fib.wasm", Stdout: &stdout, Cache: fixtures.CompilationCache(t)}
			sess.Configure(&opts)
			res, err := runner.Run(context.Background(), sess.Main(), opts)
			require.NoError(t, err)
			require.NoError(t, res.Trap)
			assert.Equal(t, "fib(20) = 6765\n", stdout.String())

			out, err := sess.Finish(tt.ctx, profiler.Run{ExitCode: profiler.ExitCode(res)})
			require.NoError(t, err)
			var warnings []string
			for _, w := range out.Warnings {
				warnings = append(warnings, w.Error())
			}
			if tt.warning == "" {
				assert.Empty(t, warnings)
			} else {
				assert.Equal(t, []string{tt.warning}, warnings)
			}
			p, err := jsprofile.Read(out.Profile)
			require.NoError(t, err, "the profile reads back")
			var js []string
			for _, fn := range p.Function {
				if strings.HasPrefix(fn.SystemName, "js:") {
					js = append(js, fn.Name)
				}
			}
			require.NotEmpty(t, js)
			assert.True(t, slices.ContainsFunc(js, func(name string) bool { return strings.HasPrefix(name, tt.fib) }), "%q", js)
		})
	}
}

// TestSecondSignalExitsAtOnce: a second signal while jsprof still deals
// with the first ends it at once, with 128 + the second's number, saying
// so and naming the outputs it leaves unwritten, and leaving no output
// and no temporary file. The process is
// stopped while both are sent (SIGINT and SIGTERM: two of one signal
// would merge), so that they arrive together, as they would while jsprof
// writes a large profile. The program calls 20,000 functions before it
// loops for ever: their profile takes jsprof a few hundred milliseconds
// to write, so that the second signal is still in time however late a
// loaded machine hands it over. (With a program of one function, the
// profile was once written first.)
func TestSecondSignalExitsAtOnce(t *testing.T) {
	bin := jsprofProcess(t)
	src := manyFunctions(20_000) + "for (;;) {\n  s = (s + 1) % 1000003;\n}\n"
	js := filepath.Join(t.TempDir(), "many-forever.js")
	require.NoError(t, os.WriteFile(js, []byte(src), 0o644))
	module := buildJS(t, js)
	dir := t.TempDir()
	prof, stacks := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "stacks.txt")
	cmd := exec.Command(bin, "run", "--progress", "50ms", "--cache-dir", fixtures.CompileCacheDir(),
		"-o", prof, "--collapsed", stacks, module)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !guestRuns(lines.Text()) {
	}
	for _, sig := range []syscall.Signal{syscall.SIGSTOP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCONT} {
		require.NoError(t, cmd.Process.Signal(sig))
	}
	var rest []string
	for lines.Scan() {
		if !strings.HasPrefix(lines.Text(), "jsprof: running:") {
			rest = append(rest, lines.Text())
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	// Which of the two the Go runtime hands over second is not fixed (the
	// threads of the process each take signals): the exit code and the
	// line name the same one.
	second := map[int]string{128 + int(syscall.SIGINT): "interrupt", 128 + int(syscall.SIGTERM): "terminated"}[exit.ExitCode()]
	require.NotEmpty(t, second, "exit code %d", exit.ExitCode())
	assert.Equal(t, []string{"jsprof: " + second + ", a second signal: exiting without writing " + prof + ", " + stacks}, rest)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no output, no temporary file")
}
