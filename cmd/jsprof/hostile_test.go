package main

import (
	"context"
	"fmt"
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
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestOutputsCheckedBeforeTheGuestRuns: an output jsprof cannot write, or
// one that would overwrite another output or the module, is refused before
// the guest runs (it prints nothing), with exit code 2.
func TestOutputsCheckedBeforeTheGuestRuns(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	dir := t.TempDir()
	// Inputs the outputs must not overwrite: copies, as a failing test
	// would write over them.
	inputs := t.TempDir()
	source, input, plugin := filepath.Join(inputs, "fib.js"), filepath.Join(inputs, "input.json"), filepath.Join(inputs, "plugin.wasm")
	for _, c := range [][2]string{{fixtures.Path("js", "fib.js"), source}, {fixtures.EnginePath(t, "javy-plugin-1.7.0"), plugin}} {
		b, err := os.ReadFile(c[0])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(c[1], b, 0o644))
	}
	require.NoError(t, os.WriteFile(input, []byte("{}"), 0o644))
	inputLink := filepath.Join(dir, "input-link.json") // another name for the input
	require.NoError(t, os.Symlink(input, inputLink))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing directory", []string{"-o", "/nonexistent/dir/p.pb.gz"}, "writing /nonexistent/dir/p.pb.gz: open /nonexistent/dir: no such file or directory"},
		{"a directory", []string{"-o", dir}, "writing " + dir + ": not a regular file"},
		{"proc", []string{"-o", "/proc/p.pb.gz"}, "writing /proc/p.pb.gz"},
		{"collapsed is the profile", []string{"-o", filepath.Join(dir, "p"), "--collapsed", filepath.Join(dir, "p")}, "-o and --collapsed both name " + filepath.Join(dir, "p")},
		{"report is the profile", []string{"-o", filepath.Join(dir, "p"), "--report-json", filepath.Join(dir, ".", "p")}, "-o and --report-json both name"},
		{"profile is the module", []string{"-o", module}, "-o " + module + ": that is the module being run"},
		{"profile is the source", []string{"--source", source, "-o", source}, "-o " + source + ": that is the --source file"},
		{"collapsed is the plugin", []string{"--plugin", plugin, "--collapsed", plugin}, "--collapsed " + plugin + ": that is a --plugin"},
		{"report is the input", []string{"--input", input, "--report-json", input}, "--report-json " + input + ": that is the --input file"},
		{"profile is the input by another name", []string{"--input", input, "-o", inputLink}, "-o " + inputLink + ": that is the --input file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append(append([]string{"run"}, tt.args...), module)...)
			assert.Equal(t, cli.ExitUsage, got.code)
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
	for _, in := range []string{source, input, plugin} {
		b, err := os.ReadFile(in)
		require.NoError(t, err)
		assert.NotContains(t, string(b), "jsprof", "%s is intact", in)
	}
	fi, err := os.Lstat(inputLink)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is intact")
}

// TestOutputsToDevicesAndLinks: an output may be a character device
// (/dev/null), written in place rather than replaced, or a link to one
// (/dev/stdout on a terminal), which the kernel follows. (A link to
// anything else is refused: TestOutputLinksAreNotFollowed.)
func TestOutputsToDevicesAndLinks(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	dir := t.TempDir()
	link := filepath.Join(dir, "null")
	require.NoError(t, os.Symlink(os.DevNull, link))
	tests := []struct {
		name string
		args []string
	}{
		{"all to /dev/null", []string{"-o", os.DevNull, "--collapsed", os.DevNull, "--report-json", os.DevNull}},
		{"profile through a link to a device", []string{"-o", link}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append(append([]string{"run"}, tt.args...), module)...)
			require.Equal(t, 0, got.code, got.stderr)
			assert.Equal(t, "fib(20) = 6765\n", got.stdout)
		})
	}
	st, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeCharDevice, "/dev/null is still a device")
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is still a link")
	matches, _ := filepath.Glob(filepath.Join(dir, ".jsprof-*"))
	assert.Empty(t, matches, "no temporary file left behind")
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
		{"pprof port out of range", []string{"--mode", "sample", "--pprof-addr", ":99999"}, "--pprof-addr :99999: want HOST:PORT: address 99999: invalid port"},
		{"sample period in exact mode", []string{"--sample-every", "1000"}, "--sample-every needs --mode sample"},
		{"sample period, unprofiled", []string{"--mode", "off", "--sample-every", "1000"}, "--sample-every needs --mode sample"},
		{"Wasm stack period in sample mode", []string{"--mode", "sample", "--wasm-stack-every", "1000"}, "--wasm-stack-every needs --mode exact"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append(append([]string{"run"}, tt.args...), module)...)
			assert.Equal(t, cli.ExitUsage, got.code)
			assert.Contains(t, got.stderr, tt.want)
			assert.Empty(t, got.stdout, "the guest did not run")
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
	cancel(interrupted{Sig: syscall.SIGINT})
	var out, errOut strings.Builder
	code := Main(ctx, []string{"run", "--cache-dir", fixtures.CompileCacheDir(), "-o", filepath.Join(t.TempDir(), "p.pb.gz"), module},
		stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	assert.Equal(t, 130, code)
	assert.True(t, strings.HasPrefix(errOut.String(), "jsprof: interrupted by interrupt\n"), errOut.String())
}

// TestCollapsedNamesStayOnTheirLine: a name with a line break (here a
// source file name) cannot break the collapsed format's one stack a line,
// whichever break a reader honours: newline, carriage return, NEL
// (U+0085), the line and paragraph separators (U+2028, U+2029).
func TestCollapsedNamesStayOnTheirLine(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	line := regexp.MustCompile(`^[^\n]+ [0-9]+$`)
	for _, brk := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
		t.Run(fmt.Sprintf("%U", []rune(brk)[0]), func(t *testing.T) {
			collapsed := filepath.Join(t.TempDir(), "stacks.txt")
			got := jsprof(t, "", "run", "--source", "evil"+brk+"name;x.js", "--collapsed", collapsed, module)
			require.Equal(t, 0, got.code, got.stderr)
			b, err := os.ReadFile(collapsed)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			require.NotEmpty(t, lines)
			for _, l := range lines {
				assert.Regexp(t, line, l)
			}
			if brk != "\n" { // the lines' own ends
				assert.NotContains(t, string(b), brk)
			}
			assert.Contains(t, string(b), "fib (evil name:x.js:2)")
		})
	}
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
		assert.Equal(t, cli.ExitFailure, got.code)
		assert.Contains(t, got.stderr, "overflow")
	}
}

// TestBrokenPipe: jsprof run … | head: the reader goes away, the guest's
// writes fail, and jsprof still writes the profile instead of dying of
// SIGPIPE.
func TestBrokenPipe(t *testing.T) {
	bin := jsprofProcess(t)
	module := buildJS(t, "testdata/chatty.js")
	prof := filepath.Join(t.TempDir(), "p.pb.gz")
	cmd := exec.Command(bin, "run", "-q", "--cache-dir", fixtures.CompileCacheDir(), "-o", prof, module)
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

// TestCompareTimeout: compare stops a guest that runs too long and fails,
// as its help says, the diff still printed with the functions named (a
// timeout is no interrupt: naming runs). With an empty compilation cache,
// compiling both engines takes longer than the timeout: the guests run
// all the same, the timeout counting from their start.
func TestCompareTimeout(t *testing.T) {
	t.Parallel()
	got := jsprof(t, "", "compare", "--cache-dir", t.TempDir(), "--timeout", "300ms",
		"--plugin", fixtures.EnginePath(t, "javy-plugin-1.1.0"), "--plugin", fixtures.EnginePath(t, "javy-plugin-1.7.0"), "testdata/forever.js")
	assert.Equal(t, cli.ExitFailure, got.code, got.stderr)
	lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
	assert.Equal(t, "jsprof: compare: both guests were stopped after --timeout 300ms: the profiles cover part of a run", lines[len(lines)-1])
	assert.Contains(t, got.stdout, "<eval> (forever.js:1)", "named, not by address, after the user's file")
	assert.NotContains(t, got.stdout, "no JS function is in both profiles")
	// Each guest ran its loop for a good part of the 300 ms (about 10^9
	// instructions a second), not what compiling left of them.
	assert.Regexp(t, `Wasm instructions +[0-9.]+[MG] +[0-9.]+[MG]`, got.stdout)
}

// TestModuleImportingMeterState: a module may not import the meter's
// jsprof.* globals from the instrumented plugin.
func TestModuleImportingMeterState(t *testing.T) {
	got := jsprof(t, "", "run", "testdata/imports_meter.wasm")
	assert.Equal(t, cli.ExitFailure, got.code)
	assert.Contains(t, got.stderr, "the module imports javy_quickjs_provider_v3.jsprof.next_sample: only jsprof's own instrumentation may use jsprof's names")
}

// TestFixedSizeMemory: a module whose memory cannot grow (maximum =
// minimum) is profiled all the same: the instrumented copy lifts the
// maximum so that the meter finds room for its counters.
func TestFixedSizeMemory(t *testing.T) {
	t.Parallel()
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

// TestGuestOverwritesItsMemory: a guest that fills its whole memory at the
// end of its run (testdata/overwrite.wat, one export per byte) writes over
// the meter's counters, which live there. Its profile is written all the
// same and adds up: what the counters can no longer place is charged to
// one frame that says so, one warning line says why, and jsprof exits
// with the guest's own exit code (3).
func TestGuestOverwritesItsMemory(t *testing.T) {
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	tests := []struct {
		export string
		header string // what the warning says the first block's header holds
	}{
		{"_start", "header says base 0xffffffff, limit 4294967295"},
		{"fill_7f", "header says base 0x7f7f7f7f, limit 2139062143"},
		{"fill_00", "header says base 0x0, limit 0, check 0x0"},
	}
	for _, tt := range tests {
		t.Run(tt.export, func(t *testing.T) {
			dir := t.TempDir()
			prof, collapsed := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "stacks.txt")
			got := jsprof(t, "", "run", "-q", "--plugin", plugin, "-e", tt.export, "-o", prof, "--collapsed", collapsed, "testdata/overwrite.wasm")
			assert.Equal(t, 3, got.code, "the guest's exit code: %s", got.stderr)
			assert.Equal(t, "fib 6765\n", got.stdout)
			lines := strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n")
			require.Len(t, lines, 1, "one warning line: %q", got.stderr)
			assert.True(t, strings.HasPrefix(lines[0], "jsprof: warning: meter: the guest wrote over the profiler's counters"), lines[0])
			assert.Contains(t, lines[0], tt.header)
			assert.Contains(t, lines[0], "charged to "+jsprofile.BucketTampered)

			p, err := jsprofile.ReadFile(prof)
			require.NoError(t, err, "the profile reads back: its samples add up to its total")
			require.NotNil(t, p.Meta.ExitCode)
			assert.Equal(t, 3, *p.Meta.ExitCode)
			assert.Positive(t, p.Meta.TotalInstructions)
			var tampered, own int64
			for _, s := range p.Sample {
				for _, loc := range s.Location {
					switch loc.Line[0].Function.Name {
					case jsprofile.BucketTampered:
						tampered += s.Value[jsprofile.ValueInstructions]
					case jsprofile.BucketModuleCode:
						own += s.Value[jsprofile.ValueInstructions]
					}
				}
			}
			// The fill wrote over every block: the whole run is in it, but
			// for the module's own code (its fill loop), which wasmcore's
			// counter in the module counted, out of the guest's reach.
			assert.Positive(t, own)
			assert.Equal(t, int64(p.Meta.TotalInstructions), tampered+own)
			b, err := os.ReadFile(collapsed)
			require.NoError(t, err)
			assert.Contains(t, string(b), jsprofile.BucketTampered+" ")
		})
	}
}

// TestBlockedGuestTimeout: a profiled guest blocked in a host call for
// ever (testdata/blocked.wat: after its JS, reading or polling a stdin
// that never ends, and calling again whatever it is told, in a loop of
// the dynamic module's own, which no checkpoint watches) is stopped by
// --timeout: jsprof exits 124 promptly, the profile written with the JS
// that ran.
func TestBlockedGuestTimeout(t *testing.T) {
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	for _, export := range []string{"_start", "poll_stdin"} {
		t.Run(export, func(t *testing.T) {
			stdin, never := io.Pipe() // never written, closed when the test ends
			defer never.Close()
			prof := filepath.Join(t.TempDir(), "p.pb.gz")
			var out, errOut strings.Builder
			code := Main(context.Background(), []string{"run", "-q", "--cache-dir", fixtures.CompileCacheDir(),
				"--plugin", plugin, "-e", export, "--timeout", "300ms", "-o", prof, "testdata/blocked.wasm"},
				stdio{in: stdin, out: &out, err: &errOut})
			assert.Equal(t, cli.ExitLimit, code, errOut.String())
			assert.Equal(t, "fib 6765\n", out.String())
			assert.Equal(t, "jsprof: stopped after --timeout 300ms\n", errOut.String())
			p, err := jsprofile.ReadFile(prof)
			require.NoError(t, err)
			require.NotNil(t, p.Meta.ExitCode)
			assert.Equal(t, cli.ExitLimit, *p.Meta.ExitCode)
			assert.Equal(t, "stopped after --timeout 300ms", p.Meta.Trap)
			assert.Contains(t, functionNames(p.Profile), "<eval>", "the JS that ran is in it")
			assert.Positive(t, sampleTotal(p.Profile))
		})
	}
}

// functionNames are the names of a profile's functions.
func functionNames(p *profile.Profile) []string {
	var names []string
	for _, fn := range p.Function {
		names = append(names, fn.Name)
	}
	return names
}
