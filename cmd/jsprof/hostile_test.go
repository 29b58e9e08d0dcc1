package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestOutputsCheckedBeforeTheGuestRuns: an output jsprof cannot write, or
// one that would overwrite another output or the module, is refused before
// the guest runs (it prints nothing), with exit code 2.
func TestOutputsCheckedBeforeTheGuestRuns(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing directory", []string{"-o", "/nonexistent/dir/p.pb.gz"}, "writing /nonexistent/dir/p.pb.gz: open /nonexistent/dir/.jsprof-"},
		{"a directory", []string{"-o", dir}, "writing " + dir + ": not a regular file"},
		{"proc", []string{"-o", "/proc/p.pb.gz"}, "writing /proc/p.pb.gz"},
		{"collapsed is the profile", []string{"-o", filepath.Join(dir, "p"), "--collapsed", filepath.Join(dir, "p")}, "-o and --collapsed both name " + filepath.Join(dir, "p")},
		{"report is the profile", []string{"-o", filepath.Join(dir, "p"), "--report-json", filepath.Join(dir, ".", "p")}, "-o and --report-json both name"},
		{"profile is the module", []string{"-o", module}, "-o " + module + ": that is the module being run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append(append([]string{"run"}, tt.args...), module)...)
			assert.Equal(t, exitUsage, got.code)
			assert.Empty(t, got.stdout, "the guest did not run")
			assert.Contains(t, got.stderr, tt.want)
			assert.Equal(t, 1, strings.Count(got.stderr, "\n"), "one line: %q", got.stderr)
			matches, _ := filepath.Glob(filepath.Join(dir, ".jsprof-*"))
			assert.Empty(t, matches, "no temporary file left behind")
		})
	}
	st, err := os.Stat(module)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000), "the module is intact")
}

// TestBadFlagsAreUsageErrors: flags jsprof cannot follow exit 2 before
// anything runs.
func TestBadFlagsAreUsageErrors(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"sample period 0", []string{"--mode", "sample", "--sample-every", "0"}, "--sample-every 0: want a period of at least 1 instruction"},
		{"pprof address", []string{"--mode", "sample", "--pprof-addr", "bogus"}, "--pprof-addr bogus: want HOST:PORT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append(append([]string{"run"}, tt.args...), module)...)
			assert.Equal(t, exitUsage, got.code)
			assert.Contains(t, got.stderr, tt.want)
		})
	}
}

// TestPprofAddrPortZero: with port 0, jsprof says which port it chose.
func TestPprofAddrPortZero(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	got := jsprof(t, "", "run", "--mode", "sample", "--sample-every", "20000", "--pprof-addr", "127.0.0.1:0", module)
	require.Equal(t, 0, got.code, got.stderr)
	assert.Regexp(t, `jsprof: serving the running guest's profile at http://127\.0\.0\.1:[1-9][0-9]*/debug/pprof/profile`, got.stderr)
}

// TestHelpOnce: --help prints the usage once, on stdout, and no flag shows
// the -1 that stands for "not given".
func TestHelpOnce(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			got := jsprof(t, "", c.name, "--help")
			assert.Equal(t, 0, got.code)
			assert.Equal(t, 1, strings.Count(got.stdout, "usage: "), got.stdout)
			assert.Empty(t, got.stderr)
			assert.NotContains(t, got.stdout, "(default -1)")
		})
	}
}

// TestExitCodeOutOfRange: a guest's proc_exit(256) is no exit status; jsprof
// exits 1 and says why, rather than 0 (256 mod 256).
func TestExitCodeOutOfRange(t *testing.T) {
	got := jsprof(t, "", "run", "testdata/exit256.wasm")
	assert.Equal(t, 1, got.code)
	assert.Contains(t, got.stderr, "the guest exited with code 256, which no process can exit with (0-255)")
}

// TestInterruptBeforeTheGuest: an interrupt during the analysis exits with
// 128+n, as one during the run does, not 1.
func TestInterruptBeforeTheGuest(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(interrupted{syscall.SIGINT})
	var out, errOut strings.Builder
	code := Main(ctx, []string{"run", "--cache-dir", filepath.Join(fixtures.CacheDir(), "wazero"), "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module},
		stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	assert.Equal(t, 130, code)
	assert.Equal(t, "jsprof: interrupted by interrupt\n", errOut.String())
}

// TestCollapsedNamesStayOnTheirLine: a name with a line break (here a
// source file name) cannot break the collapsed format's one stack a line.
func TestCollapsedNamesStayOnTheirLine(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	collapsed := filepath.Join(t.TempDir(), "stacks.txt")
	got := jsprof(t, "", "run", "--source", "evil\nname;x.js", "--collapsed", collapsed, module)
	require.Equal(t, 0, got.code, got.stderr)
	b, err := os.ReadFile(collapsed)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.NotEmpty(t, lines)
	line := regexp.MustCompile(`^[^\n]+ [0-9]+$`)
	for _, l := range lines {
		assert.Regexp(t, line, l)
	}
	assert.Contains(t, string(b), "fib (evil name:x.js:2)")
}

// TestReportRefusesOverflowingSums: values near 2^63 would wrap the sums;
// jsprof report says so instead of printing wrapped totals.
func TestReportRefusesOverflowingSums(t *testing.T) {
	b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeSample, TotalInstructions: 1})
	b.Add([]jsprofile.Frame{jsprofile.JSFrame("f", "f.js", 1, 1, 0x100, 0)}, 1, 0, 0)
	p, err := b.Profile()
	require.NoError(t, err)
	for _, value := range []int{jsprofile.ValueInstructions, jsprofile.ValueExecutions, jsprofile.ValueCalls} {
		q := p.Copy()
		s := q.Sample[0]
		s.Value[value] = 1 << 62
		q.Sample = []*profile.Sample{s, {Location: s.Location, Value: append([]int64(nil), s.Value...)}, {Location: s.Location, Value: append([]int64(nil), s.Value...)}, {Location: s.Location, Value: append([]int64(nil), s.Value...)}}
		path := filepath.Join(t.TempDir(), "big.pb.gz")
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, q.Write(f))
		require.NoError(t, f.Close())
		got := jsprof(t, "", "report", path)
		assert.Equal(t, exitFailure, got.code)
		assert.Contains(t, got.stderr, "overflow")
	}
}

// TestBrokenPipe: jsprof run … | head: the reader goes away, the guest's
// writes fail, and jsprof still writes the profile instead of dying of
// SIGPIPE.
func TestBrokenPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jsprof binary")
	}
	bin := filepath.Join(t.TempDir(), "jsprof")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	module := buildJS(t, "testdata/chatty.js")
	prof := filepath.Join(t.TempDir(), "p.pb.gz")
	cmd := exec.Command(bin, "run", "-q", "--cache-dir", filepath.Join(fixtures.CacheDir(), "wazero"), "-o", prof, module)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	head := make([]byte, 100)
	_, err = io.ReadFull(stdout, head)
	require.NoError(t, err)
	require.NoError(t, stdout.Close())
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &exit)
		assert.False(t, exit.Sys().(syscall.WaitStatus).Signaled(), "killed by %v", exit)
	}
	p := readProfile(t, prof)
	assert.Positive(t, sampleTotal(p), stderr.String())
}

// TestCompareTimeout: compare stops a guest that runs too long, and says
// the engines did not behave alike (both stopped: 124).
func TestCompareTimeout(t *testing.T) {
	got := jsprof(t, "", "compare", "--cache-dir", filepath.Join(fixtures.CacheDir(), "wazero"), "--timeout", "300ms",
		"--plugin", fixtures.EnginePath(t, "javy-plugin-1.1.0"), "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), "testdata/forever.js")
	assert.Equal(t, 0, got.code, got.stderr)
	assert.Contains(t, got.stderr, "exited with 124")
}

// TestModuleImportingMeterState: a module may not import the meter's
// jsprof.* globals from the instrumented plugin.
func TestModuleImportingMeterState(t *testing.T) {
	got := jsprof(t, "", "run", "testdata/imports_meter.wasm")
	assert.Equal(t, exitFailure, got.code)
	assert.Contains(t, got.stderr, "the module imports javy_quickjs_provider_v3.jsprof.next_sample: only jsprof's own instrumentation may use jsprof's names")
}

// TestFixedSizeMemory: a module whose memory cannot grow (maximum =
// minimum) is profiled all the same: the instrumented copy lifts the
// maximum so that the meter finds room for its counters.
func TestFixedSizeMemory(t *testing.T) {
	wasm, err := os.ReadFile(buildJS(t, fixtures.Path("js", "fib.js")))
	require.NoError(t, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	require.NotEmpty(t, m.Memories)
	for i := range m.Memories {
		m.Memories[i].Limits.Max, m.Memories[i].Limits.HasMax = m.Memories[i].Limits.Min, true
	}
	fixed, err := m.Encode()
	require.NoError(t, err)
	module := filepath.Join(t.TempDir(), "fixed.wasm")
	require.NoError(t, os.WriteFile(module, fixed, 0o644))

	off := jsprof(t, "", "run", "--mode", "off", module)
	require.Equal(t, 0, off.code, off.stderr)
	got := jsprof(t, "", "run", "--report", module)
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, off.stdout, got.stdout)
	assert.Contains(t, got.stderr, "fib (fib.js:1)")
}
