package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/printable"
	"github.com/jsprof/jsprof/internal/run/javy"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
	"github.com/jsprof/jsprof/wasmcore"
)

// secretFile makes a file outside anything a test grants, 0600, and
// returns its path and a check that it is unchanged: content, mode, and
// a regular file still.
func secretFile(t *testing.T, dir string) (string, func()) {
	t.Helper()
	secret := filepath.Join(dir, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET\n"), 0o600))
	require.NoError(t, os.Chmod(secret, 0o600))
	return secret, func() {
		t.Helper()
		st, err := os.Lstat(secret)
		require.NoError(t, err)
		assert.True(t, st.Mode().IsRegular(), "the secret is a file still")
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the secret's mode is unchanged")
		b, err := os.ReadFile(secret)
		require.NoError(t, err)
		assert.Equal(t, "SECRET\n", string(b), "the secret is unchanged")
	}
}

// TestGuestCannotRedirectOutputs: a guest granted the directory of -o and
// --collapsed (testdata/tempfile_attack.wat, a dynamic module whose own
// code runs before and after its JS) replaces every .jsprof-* entry it
// finds, and the outputs' own names, with links to ../secret.txt. The
// outputs still land where they were named, as files, the secret
// outside is untouched (it was made 0644, and the next run wrote the
// profile over it, when jsprof chmod-ed and renamed its temporary file by
// path), and no temporary file is left.
func TestGuestCannotRedirectOutputs(t *testing.T) {
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	top := t.TempDir()
	_, unchanged := secretFile(t, top)
	granted := filepath.Join(top, "granted")
	require.NoError(t, os.Mkdir(granted, 0o755))
	prof, collapsed := filepath.Join(granted, "p.pb.gz"), filepath.Join(granted, "stacks.txt")
	for run := range 2 { // the second run finds the links the first left, had it left any
		got := jsprof(t, "", "run", "-q", "--dir", granted, "--plugin", plugin, "-o", prof, "--collapsed", collapsed, "testdata/tempfile_attack.wasm")
		require.Equal(t, 0, got.code, "run %d: %s", run, got.stderr)
		assert.Equal(t, "fib 6765\n", got.stdout)
		assert.Empty(t, got.stderr)
		unchanged()
		for _, out := range []string{prof, collapsed} {
			st, err := os.Lstat(out)
			require.NoError(t, err)
			assert.True(t, st.Mode().IsRegular(), "%s is a file, not the guest's link", out)
			assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
		}
		p, err := jsprofile.ReadFile(prof)
		require.NoError(t, err)
		assert.Contains(t, functionNames(p.Profile), "<eval>", "the JS ran and is in it")
		entries, err := os.ReadDir(granted)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		assert.ElementsMatch(t, []string{"p.pb.gz", "stacks.txt"}, names, "no temporary file left, nothing else made")
	}
}

// TestOutputLinksAreNotFollowed: an output named by a symbolic link is
// refused (exit 2, before the guest runs), wherever the link leads: a
// file of the user's, the secret of another (a link in a sticky,
// world-writable directory, owned by another user, as in /tmp, where
// the kernel's protected_symlinks cannot help a program that resolves
// the link itself), nowhere. Nothing is written through it and the link
// stays. (A link to a character device is written through:
// TestOutputsToDevicesAndLinks.)
func TestOutputLinksAreNotFollowed(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	top := t.TempDir()
	secret, unchanged := secretFile(t, top)
	sticky := filepath.Join(top, "tmp")
	require.NoError(t, os.Mkdir(sticky, 0o777))
	require.NoError(t, os.Chmod(sticky, 0o777|os.ModeSticky))
	tests := []struct {
		name, link, target string
		owner              int // the link's owner, when the test can choose it (as root)
	}{
		{"to a file", "mine.pb.gz", secret, -1},
		{"of another user in sticky tmp", "theirs.pb.gz", secret, 1000},
		{"relative", "relative.pb.gz", "../secret.txt", -1},
		{"dangling", "dangling.pb.gz", filepath.Join(top, "nowhere"), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			link := filepath.Join(sticky, tt.link)
			require.NoError(t, os.Symlink(tt.target, link))
			if tt.owner >= 0 && os.Geteuid() == 0 {
				require.NoError(t, os.Lchown(link, tt.owner, tt.owner))
			}
			got := jsprof(t, "", "run", "-o", link, module)
			assert.Equal(t, cli.ExitUsage, got.code)
			assert.Empty(t, got.stdout, "the guest did not run")
			assert.Equal(t, "jsprof: writing "+link+": a symbolic link: jsprof writes no file through a link (name the file itself)\n", got.stderr)
			st, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, st.Mode()&os.ModeSymlink, "the link stays")
			unchanged()
			_, err = os.Stat(filepath.Join(top, "nowhere"))
			assert.ErrorIs(t, err, os.ErrNotExist, "nothing made through a dangling link")
		})
	}
}

// startLoop is how withStartLoop's start function loops.
type startLoop struct {
	// announce: it first writes "looping" on stdout (through the
	// module's own fd_write import), so that a test knows when it loops.
	announce bool
	// called: the loop is in a function the start function calls, not
	// in its own body.
	called bool
}

// withStartLoop writes a copy of the module at path given a start
// function that loops for ever (as how says), and returns the copy's
// path.
func withStartLoop(t *testing.T, path string, how startLoop) string {
	t.Helper()
	wasm, err := os.ReadFile(path)
	require.NoError(t, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	var body []byte
	if how.announce {
		fdWrite, fn := -1, 0
		for _, im := range m.Imports {
			if im.Kind == wasmcore.ExternFunc {
				if im.Module == "wasi_snapshot_preview1" && im.Name == "fd_write" {
					fdWrite = fn
				}
				fn++
			}
		}
		require.GreaterOrEqual(t, fdWrite, 0, "the module imports fd_write")
		// "looping\n" at 16, its iovec {16, 8} at 0, fd_write(1, 0, 1, 24):
		// the engine's memory is written over, but it never runs.
		for _, in := range []wasmcore.Instr{
			{Op: wasmcore.OpI32Const, I32: 16}, {Op: wasmcore.OpI64Const, I64: 0x0a676e69706f6f6c}, {Op: wasmcore.OpI64Store, Mem: wasmcore.MemArg{Align: 3}},
			{Op: wasmcore.OpI32Const, I32: 0}, {Op: wasmcore.OpI32Const, I32: 16}, {Op: wasmcore.OpI32Store, Mem: wasmcore.MemArg{Align: 2}},
			{Op: wasmcore.OpI32Const, I32: 4}, {Op: wasmcore.OpI32Const, I32: 8}, {Op: wasmcore.OpI32Store, Mem: wasmcore.MemArg{Align: 2}},
			{Op: wasmcore.OpI32Const, I32: 1}, {Op: wasmcore.OpI32Const, I32: 0}, {Op: wasmcore.OpI32Const, I32: 1}, {Op: wasmcore.OpI32Const, I32: 24},
			{Op: wasmcore.OpCall, Index: uint32(fdWrite)}, {Op: wasmcore.OpDrop},
		} {
			body = wasmcore.AppendInstr(body, in)
		}
	}
	void := m.AddType(wasmcore.FuncType{})
	forever := []byte{0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b} // loop br 0 end end
	if how.called {
		looping := m.AddFunction(wasmcore.Function{Type: void, Body: forever})
		body = append(wasmcore.AppendInstr(body, wasmcore.Instr{Op: wasmcore.OpCall, Index: looping}), 0x0b)
	} else {
		body = append(body, forever...)
	}
	start := m.AddFunction(wasmcore.Function{Type: void, Body: body})
	m.Start = &start
	out, err := m.Encode()
	require.NoError(t, err)
	looping := filepath.Join(t.TempDir(), filepath.Base(path))
	require.NoError(t, os.WriteFile(looping, out, 0o644))
	return looping
}

// TestStopsBeforeTheExportCall: what runs before the export call — a
// start function, a plugin's initialize-runtime — is stopped by
// --timeout and --max-instructions as the call is: exit 124, the profile
// written with what there is. A start function that looped ignored both
// (wazero runs it while instantiating, before the meter's state exists,
// and nothing in it checked the run's context); a limit reached in
// initialize-runtime exited 1 with no profile; a plain WASI module's
// looping start under --timeout said "the guest exited with code
// 4026531839", wazero's code for a module it closed.
func TestStopsBeforeTheExportCall(t *testing.T) {
	t.Parallel()
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	static := withStartLoop(t, buildJS(t, fixtures.Path("js", "fib.js")), startLoop{})
	loopingPlugin := withStartLoop(t, plugin, startLoop{})
	tests := []struct {
		name    string
		args    []string
		line    string // jsprof's last line
		profile bool
	}{
		{"static module, looping start, --timeout", []string{"--timeout", "300ms", static}, "jsprof: stopped after --timeout 300ms", true},
		{"static module, looping start, sampling", []string{"--mode", "sample", "--timeout", "300ms", static}, "jsprof: stopped after --timeout 300ms", true},
		{"plugin with a looping start", []string{"--timeout", "300ms", "--plugin", loopingPlugin, "testdata/overwrite.wasm"}, "jsprof: stopped after --timeout 300ms", true},
		{"limit in initialize-runtime", []string{"--max-instructions", "2500000", "--plugin", plugin, "testdata/overwrite.wasm"}, "jsprof: stopped: the guest reached the instruction limit (2500000 Wasm instructions)", true},
		{"plain WASI, looping start", []string{"--timeout", "300ms", "testdata/startloop.wasm"}, "jsprof: stopped after --timeout 300ms", false},
		{"plain WASI, looping start, unprofiled", []string{"--mode", "off", "--timeout", "300ms", "testdata/startloop.wasm"}, "jsprof: stopped after --timeout 300ms", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prof := filepath.Join(t.TempDir(), "p.pb.gz")
			args := []string{"run", "-q"}
			if !unprofiled(tt.args) {
				args = append(args, "-o", prof) // --mode off writes no profile
			}
			got := jsprof(t, "", append(args, tt.args...)...)
			assert.Equal(t, cli.ExitLimit, got.code, got.stderr)
			lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
			assert.Equal(t, tt.line, lines[len(lines)-1])
			if !tt.profile {
				return
			}
			p, err := jsprofile.ReadFile(prof)
			require.NoError(t, err, got.stderr)
			require.NotNil(t, p.Meta.ExitCode)
			assert.Equal(t, cli.ExitLimit, *p.Meta.ExitCode)
		})
	}
}

// TestLimitsHoldFromTheFirstStartFunction (issue 38): every run limit —
// --max-instructions, --timeout, the first SIGINT — is in force from the
// first instruction of the first start function, wherever the loop is:
// exit 124 or 130, one line saying why, the profile written. A start
// function's own loop ran past --max-instructions, in a static module
// or a plugin (with -q, a silent hang with no profile); a start
// function that called a looping function ran past --timeout and the
// first SIGINT as well; a dynamic module's own loop, which the meter
// does not count, ran past --max-instructions. Each run is bounded by a deadline that kills
// jsprof, so that a failure does not hang the suite.
func TestLimitsHoldFromTheFirstStartFunction(t *testing.T) {
	t.Parallel()
	bin := jsprofProcess(t)
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	fib := buildJS(t, fixtures.Path("js", "fib.js"))
	const limited = "jsprof: stopped: the guest reached the instruction limit (1000 Wasm instructions)"
	const timedOut = "jsprof: stopped after --timeout 300ms"
	tests := []struct {
		name   string
		looper string // whose start function loops: "static" (a static module's), "plugin", "dynamic" (a dynamic module's)
		how    startLoop
		args   []string
		signal bool // SIGINT once the start function says it loops
		code   int
		line   string // jsprof's last line
	}{
		{"static module, own loop, --max-instructions", "static", startLoop{}, []string{"--max-instructions", "1000"}, false, cli.ExitLimit, limited},
		{"plugin, own loop, --max-instructions", "plugin", startLoop{}, []string{"--max-instructions", "1000"}, false, cli.ExitLimit, limited},
		{"static module, called loop, --max-instructions", "static", startLoop{called: true}, []string{"--max-instructions", "1000"}, false, cli.ExitLimit, limited},
		{"static module, called loop, --timeout", "static", startLoop{called: true}, []string{"--timeout", "300ms"}, false, cli.ExitLimit, timedOut},
		{"static module, called loop, sampling, --timeout", "static", startLoop{called: true}, []string{"--mode", "sample", "--timeout", "300ms"}, false, cli.ExitLimit, timedOut},
		{"static module, called loop, SIGINT", "static", startLoop{called: true, announce: true}, nil, true, 130, "jsprof: interrupted by interrupt"},
		{"plugin, called loop, --timeout", "plugin", startLoop{called: true}, []string{"--timeout", "300ms"}, false, cli.ExitLimit, timedOut},
		{"plugin, called loop, --max-instructions", "plugin", startLoop{called: true}, []string{"--max-instructions", "1000"}, false, cli.ExitLimit, limited},
		// Past the plugin's initialize-runtime (under 30M), in the
		// dynamic module's own code, which the meter does not count.
		{"dynamic module, called loop, --max-instructions", "dynamic", startLoop{called: true}, []string{"--max-instructions", "30000000"}, false, cli.ExitLimit, "jsprof: stopped: the guest reached the instruction limit (30000000 Wasm instructions)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prof := filepath.Join(t.TempDir(), "p.pb.gz")
			args := append([]string{"run", "-q", "--cache-dir", fixtures.CompileCacheDir(), "-o", prof}, tt.args...)
			switch tt.looper {
			case "static":
				args = append(args, withStartLoop(t, fib, tt.how))
			case "plugin":
				args = append(args, "--plugin", withStartLoop(t, plugin, tt.how), "testdata/overwrite.wasm")
			default:
				args = append(args, "--plugin", plugin, withStartLoop(t, "testdata/overwrite.wasm", tt.how))
			}
			// A guard, not a measurement: a run that is not stopped is
			// killed, and fails below.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			said := bufio.NewScanner(stdout)
			if tt.signal {
				require.True(t, said.Scan())
				require.Equal(t, "looping", said.Text())
				require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
			}
			for said.Scan() {
			}
			err = cmd.Wait()
			code := 0
			var exit *exec.ExitError
			if err != nil {
				require.ErrorAs(t, err, &exit)
				code = exit.ExitCode()
			}
			require.NoError(t, ctx.Err(), "jsprof was not stopped: %s", stderr.String())
			assert.Equal(t, tt.code, code, stderr.String())
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			assert.Equal(t, tt.line, lines[len(lines)-1])
			p, err := jsprofile.ReadFile(prof)
			require.NoError(t, err, stderr.String())
			require.NotNil(t, p.Meta.ExitCode)
			assert.Equal(t, tt.code, *p.Meta.ExitCode)
		})
	}
}

// guestRuns says whether a line of jsprof's stderr is a progress line
// counting instructions: the guest runs. Progress lines come from before
// the modules are compiled, and an interrupt while compiling stops the
// run before the guest starts (TestCompileInterrupted).
func guestRuns(line string) bool {
	return strings.HasPrefix(line, "jsprof: running:") && !strings.HasPrefix(line, "jsprof: running: 0 ")
}

// startRunning starts the jsprof binary with args, progress lines on, and
// returns once the guest runs (guestRuns), with the lines of stderr
// still to come.
func startRunning(t *testing.T, bin string, args ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--progress", "50ms", "--cache-dir", fixtures.CompileCacheDir()}, args...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !guestRuns(lines.Text()) {
	}
	return cmd, lines
}

// finish waits for cmd and returns its exit code and the lines of stderr
// that are not progress, or the closing "profile written to" line.
func finish(t *testing.T, cmd *exec.Cmd, lines *bufio.Scanner) (int, []string) {
	t.Helper()
	var rest []string
	for lines.Scan() {
		if !strings.HasPrefix(lines.Text(), "jsprof: running:") && !strings.HasPrefix(lines.Text(), "jsprof: profile written to ") {
			rest = append(rest, lines.Text())
		}
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &exit)
		return exit.ExitCode(), rest
	}
	return 0, rest
}

// TestRepeatedSignalIsOneSignal: GNU timeout sends SIGTERM to its child
// and then to its process group, so that jsprof gets it twice within
// microseconds; it took the repeat for a second signal and exited without
// writing the profile (2 runs in 12). A repeat of the first signal that
// soon is the same event: the profile is written, jsprof exits 143 with
// one line. (Another signal still ends it at once:
// TestSecondSignalExitsAtOnce.) A start function that loops is stopped
// by the first signal as well.
func TestRepeatedSignalIsOneSignal(t *testing.T) {
	bin := jsprofProcess(t)
	module := buildJS(t, "testdata/forever.js")
	for i := range 3 {
		t.Run(fmt.Sprintf("SIGTERM twice, run %d", i), func(t *testing.T) {
			prof := filepath.Join(t.TempDir(), "p.pb.gz")
			cmd, lines := startRunning(t, bin, "-o", prof, module)
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			code, rest := finish(t, cmd, lines)
			assert.Equal(t, 143, code)
			assert.Equal(t, []string{"jsprof: interrupted by terminated"}, rest)
			assert.Positive(t, sampleTotal(readProfile(t, prof)))
		})
	}
	t.Run("under GNU timeout", func(t *testing.T) {
		timeout, err := exec.LookPath("timeout")
		if err != nil {
			t.Skip("no timeout(1) here")
		}
		prof := filepath.Join(t.TempDir(), "p.pb.gz")
		// Its own process group, as a shell gives a command: timeout
		// signals the group.
		cmd := exec.Command(timeout, "2s", bin, "run", "-q", "--cache-dir", fixtures.CompileCacheDir(), "-o", prof, module)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		assert.Equal(t, cli.ExitLimit, exit.ExitCode(), "timeout's code for a command it stopped")
		assert.Equal(t, "jsprof: interrupted by terminated\n", string(out))
		assert.Positive(t, sampleTotal(readProfile(t, prof)))
	})
	t.Run("looping start function, SIGINT", func(t *testing.T) {
		// Signalled once the start function loops (it says so on stdout):
		// an interrupt while compiling ends the run with no profile.
		prof := filepath.Join(t.TempDir(), "p.pb.gz")
		cmd := exec.Command(bin, "run", "--progress", "50ms", "--cache-dir", fixtures.CompileCacheDir(), "-o", prof, withStartLoop(t, module, startLoop{announce: true}))
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		said := bufio.NewScanner(stdout)
		require.True(t, said.Scan())
		require.Equal(t, "looping", said.Text())
		lines := bufio.NewScanner(stderr)
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		code, rest := finish(t, cmd, lines)
		assert.Equal(t, 130, code)
		assert.Equal(t, []string{"jsprof: warning: the guest was stopped before its engine started: nothing was measured", "jsprof: interrupted by interrupt"}, rest)
		p, err := jsprofile.ReadFile(prof)
		require.NoError(t, err)
		require.NotNil(t, p.Meta.ExitCode)
		assert.Equal(t, 130, *p.Meta.ExitCode)
	})
}

// TestReadingProfilesIsBounded: jsprof report and diff read a gzip bomb
// (a profile file that inflates to more than jsprofile.MaxFileBytes)
// only up to the bound, and say so; they read 1 GiB of zeros whole (34 s,
// 2.7 GB).
func TestReadingProfilesIsBounded(t *testing.T) {
	bomb := filepath.Join(t.TempDir(), "bomb.pb.gz")
	f, err := os.Create(bomb)
	require.NoError(t, err)
	gz, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	require.NoError(t, err)
	zeros := make([]byte, 1<<20)
	for range jsprofile.MaxFileBytes>>20 + 1 {
		_, err := gz.Write(zeros)
		require.NoError(t, err)
	}
	require.NoError(t, gz.Close())
	require.NoError(t, f.Close())
	st, err := os.Stat(bomb)
	require.NoError(t, err)
	require.Less(t, st.Size(), int64(1<<20), "a bomb: small on disk")
	want := "jsprof: " + bomb + ": too large: more than 128 MiB uncompressed\n"
	for _, args := range [][]string{{"report", bomb}, {"report", "--html", filepath.Join(t.TempDir(), "r.html"), bomb}, {"diff", bomb, bomb}} {
		got := jsprof(t, "", args...)
		assert.Equal(t, cli.ExitFailure, got.code, "%v", args)
		assert.Equal(t, want, got.stderr, "%v", args)
	}
}

// TestReportHTMLOpensOnlyFiles: report --html looks for the module a
// profile names beside the profile (for its JS); a FIFO of that name (a
// bundle unpacked from a tar) blocked it for ever, past the first
// SIGTERM. Only regular files are opened: the page is written, without
// the JS.
func TestReportHTMLOpensOnlyFiles(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	dir := t.TempDir()
	prof := filepath.Join(dir, "p.pb.gz")
	got := jsprof(t, "", "run", "-o", prof, module)
	require.Equal(t, 0, got.code, got.stderr)
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, filepath.Base(module)), 0o644))
	page := filepath.Join(dir, "r.html")
	done := make(chan invocation, 1)
	go func() { done <- jsprof(t, "", "report", "--html", page, prof) }()
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute): // a guard, not a measurement
		t.Fatal("jsprof report --html blocked on the FIFO")
	}
	require.Equal(t, 0, got.code, got.stderr)
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(b), "fib")
}

// TestBuildKeepsItsInputs: jsprof build -o naming its JS file or its
// plugin (by that path or another name for the file) is refused, exit 2,
// as run refuses an output that is an input: -o h.js replaced the JS,
// --dynamic -o plugin.wasm turned the plugin into a 514-byte module, and
// both exited 0.
func TestBuildKeepsItsInputs(t *testing.T) {
	dir := t.TempDir()
	js, plugin := filepath.Join(dir, "h.js"), filepath.Join(dir, "plugin.wasm")
	src, err := os.ReadFile(fixtures.Path("js", "fib.js"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(js, src, 0o644))
	wasm, err := os.ReadFile(fixtures.EnginePath(t, "javy-plugin-1.7.0"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(plugin, wasm, 0o644))
	require.NoError(t, os.Link(plugin, filepath.Join(dir, "hard.wasm")))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"the JS file", []string{"-o", js}, "jsprof: build: -o " + js + ": that is the JS file\n"},
		{"the plugin, dynamic", []string{"--dynamic", "-o", plugin}, "jsprof: build: -o " + plugin + ": that is the --plugin\n"},
		{"the plugin by another name", []string{"-o", filepath.Join(dir, "hard.wasm")}, "jsprof: build: -o " + filepath.Join(dir, "hard.wasm") + ": that is the --plugin\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", append(append([]string{"build", "--plugin", plugin}, tt.args...), js)...)
			assert.Equal(t, cli.ExitUsage, got.code)
			assert.Equal(t, tt.want, got.stderr)
		})
	}
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	assert.Equal(t, src, b, "the JS is intact")
	b, err = os.ReadFile(plugin)
	require.NoError(t, err)
	assert.Equal(t, wasm, b, "the plugin is intact")
	out := filepath.Join(dir, "out.wasm")
	got := jsprof(t, "", "build", "--plugin", plugin, js, "-o", out)
	require.Equal(t, 0, got.code, "a control: another -o builds: %s", got.stderr)
}

// assertPrintable fails if out holds anything that acts on a terminal or
// reorders text (printable.String), other than the lines' own ends.
func assertPrintable(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		assert.Equal(t, printable.String(line), line, "%s: %q", what, line)
	}
}

// TestAttackerTextIsPrintable: text a guest's module or a profile chose
// reaches the terminal and the collapsed stacks made printable, by one
// function (printable.String): a jsprof.source custom section with ESC
// and OSC sequences, printed by run --report, cleared the screen and set
// the window title; an import named with ESC was printed raw in jsprof's
// error line; jsprof report passed ESC, NUL and line breaks from a
// profile's names; U+202E reached --collapsed.
func TestAttackerTextIsPrintable(t *testing.T) {
	const evil = "\x1b[2J\x1b]0;owned\x07\x00evil\n\u202ename.js"
	t.Run("run --report, a module's jsprof.source", func(t *testing.T) {
		wasm, err := os.ReadFile(buildJS(t, fixtures.Path("js", "fib.js")))
		require.NoError(t, err)
		m, err := wasmcore.Decode(wasm)
		require.NoError(t, err)
		found := false
		for i := range m.Customs {
			if m.Customs[i].Name == javy.SourceSection {
				m.Customs[i].Data, found = []byte(evil), true
			}
		}
		require.True(t, found)
		out, err := m.Encode()
		require.NoError(t, err)
		module := filepath.Join(t.TempDir(), "fib.wasm")
		require.NoError(t, os.WriteFile(module, out, 0o644))
		collapsed := filepath.Join(t.TempDir(), "stacks.txt")
		got := jsprof(t, "", "run", "--report", "--collapsed", collapsed, module)
		require.Equal(t, 0, got.code, got.stderr)
		assert.Contains(t, got.stderr, "fib ( [2J ]0;owned  evil  name.js:1)", "the file's name, made printable")
		assertPrintable(t, "stderr", got.stderr)
		b, err := os.ReadFile(collapsed)
		require.NoError(t, err)
		assertPrintable(t, "collapsed", string(b))
		assert.Contains(t, string(b), "fib ( [2J ]0:owned  evil  name.js:1)")
	})
	t.Run("an import's name in jsprof's error line", func(t *testing.T) {
		got := jsprof(t, "", "run", "testdata/escimport.wasm")
		assert.Equal(t, 134, got.code)
		assertPrintable(t, "stderr", got.stderr)
		assert.True(t, strings.HasSuffix(got.stderr, "\njsprof: the guest called import env. ]0;owned name  evil, which jsprof does not provide\n"), got.stderr)
	})
	t.Run("jsprof report of a profile's names", func(t *testing.T) {
		b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: 7, Module: evil})
		b.Add([]jsprofile.Frame{jsprofile.JSFrame(evil, evil, 1, 1, 0x100, 0)}, 7, 1, 1)
		p, err := b.Profile()
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "evil.pb.gz")
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, p.Write(f))
		require.NoError(t, f.Close())
		for _, by := range []string{"function", "line", "opcode", "summary"} {
			got := jsprof(t, "", "report", "--by", by, path)
			require.Equal(t, 0, got.code, got.stderr)
			assertPrintable(t, by, got.stdout)
			if by == "function" {
				assert.Contains(t, got.stdout, " [2J ]0;owned  evil  name.js ( [2J ]0;owned  evil  name.js:1)")
			}
		}
		got := jsprof(t, "", "diff", path, path)
		require.Equal(t, 0, got.code, got.stderr)
		assertPrintable(t, "diff", got.stdout)
	})
}

// TestUnusableCacheRunsUncached: the compilation cache is an
// optimisation: a cache directory that cannot be made (HOME=/proc/self,
// XDG_CACHE_HOME=/sys, a file where the directory should be) stopped
// every run with exit 1. The run goes uncached with one warning, and its
// profile is written. (A directory removed during the run:
// TestCacheRemovedDuringTheRun, internal/run/runner.)
func TestUnusableCacheRunsUncached(t *testing.T) {
	t.Parallel()
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, dir := range []string{"/proc/self/jsprof-cache", "/sys/jsprof-cache", filepath.Join(file, "cache")} {
		t.Run(dir, func(t *testing.T) {
			prof := filepath.Join(t.TempDir(), "p.pb.gz")
			var out, errOut strings.Builder
			code := Main(context.Background(), []string{"run", "-q", "--cache-dir", dir, "-o", prof, module}, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
			require.Equal(t, 0, code, errOut.String())
			assert.Equal(t, "fib(20) = 6765\n", out.String())
			lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
			require.Len(t, lines, 1, "one warning: %q", errOut.String())
			assert.True(t, strings.HasPrefix(lines[0], "jsprof: warning: --cache-dir "+dir+": "), lines[0])
			assert.True(t, strings.HasSuffix(lines[0], "; running uncached"), lines[0])
			_, err := jsprofile.ReadFile(prof)
			require.NoError(t, err)
		})
	}
}

// commandWith writes a command module whose _start has body (its final
// end included) and returns its path.
func commandWith(t *testing.T, body []byte) string {
	t.Helper()
	m := &wasmcore.Module{Types: []wasmcore.FuncType{{}}, Functions: []wasmcore.Function{{Type: 0, Body: body}},
		Exports: []wasmcore.Export{{Name: "_start", Kind: wasmcore.ExternFunc, Index: 0}}}
	wasm, err := m.Encode()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "hostile.wasm")
	require.NoError(t, os.WriteFile(path, wasm, 0o644))
	return path
}

// TestHostileCompilationIsBounded: modules that wazero's compiler takes
// tens of seconds and gigabytes over — one br_table of 10^6 entries (1 MB:
// 22 s, 2.4 GB), 100,000 nested blocks (300 KB: 40-46 s) — are refused
// with one line naming the function and offset (wasmcore.CheckBounds),
// profiled or not. Each runs in a jsprof process of its own, as users run
// it: the refused compilation is abandoned to the process's exit, and in
// this test's process it went on for minutes of CPU beside the other
// tests.
func TestHostileCompilationIsBounded(t *testing.T) {
	t.Parallel()
	bin := jsprofProcess(t)
	nested := func(n int) []byte {
		var body []byte
		for range n {
			body = append(body, 0x02, 0x40)
		}
		for range n + 1 {
			body = append(body, 0x0b)
		}
		return body
	}
	brTable := func(n int) []byte {
		body := []byte{0x02, 0x40, 0x41, 0x00, 0x0e, 0xc0, 0x84, 0x3d} // n = 10^6, as LEB128
		for range n + 1 {
			body = append(body, 0x00)
		}
		return append(body, 0x0b, 0x0b)
	}
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"a br_table of 10^6 entries", brTable(1_000_000), "a br_table of 1000001 entries, 1000002000001 br_table work in the module: more than jsprof compiles (268435456)"},
		{"100,000 nested blocks", nested(100_000), "blocks nested 8192 deep, 33558528 nesting work in the module: more than jsprof compiles (33554432)"},
	}
	for _, tt := range tests {
		module := commandWith(t, tt.body)
		for _, mode := range []string{"exact", "off"} {
			t.Run(tt.name+", --mode "+mode, func(t *testing.T) {
				cmd := exec.Command(bin, "run", "--mode", mode, "--cache-dir", t.TempDir(), module)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit)
				assert.Equal(t, cli.ExitFailure, exit.ExitCode())
				lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
				last := lines[len(lines)-1]
				assert.True(t, strings.HasPrefix(last, "jsprof: hostile.wasm: function 0 (offset 0x"), last)
				assert.True(t, strings.HasSuffix(last, tt.want), last)
			})
		}
	}
}

// TestHTMLKeepsItsInputs: report --html and diff --html naming a file the
// command reads — the profile, a --module or --source file, either
// profile of a diff — are refused, exit 2, as run and build refuse an
// output that is an input: report --html p.pb.gz p.pb.gz wrote the page
// over the profile, with exit 0.
func TestHTMLKeepsItsInputs(t *testing.T) {
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	dir := t.TempDir()
	prof, base := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "base.pb.gz")
	for _, p := range []string{prof, base} {
		got := jsprof(t, "", "run", "-q", "-o", p, module)
		require.Equal(t, 0, got.code, got.stderr)
	}
	src := filepath.Join(dir, "fib.js")
	b, err := os.ReadFile(fixtures.Path("js", "fib.js"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(src, b, 0o644))
	before := map[string][]byte{}
	for _, p := range []string{prof, base, src, module} {
		before[p], err = os.ReadFile(p)
		require.NoError(t, err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"report over its profile", []string{"report", "--html", prof, prof}, "jsprof: report: --html " + prof + ": that is the profile\n"},
		{"report over its --module", []string{"report", "--html", module, "--module", module, prof}, "jsprof: report: --html " + module + ": that is the --module\n"},
		{"report over a --source", []string{"report", "--html", src, "--source", src, prof}, "jsprof: report: --html " + src + ": that is a --source file\n"},
		{"diff over NEW", []string{"diff", "--html", prof, base, prof}, "jsprof: diff: --html " + prof + ": that is the NEW profile\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsprof(t, "", tt.args...)
			assert.Equal(t, cli.ExitUsage, got.code)
			assert.Equal(t, tt.want, got.stderr)
			assert.Empty(t, got.stdout)
		})
	}
	for p, b := range before {
		now, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, b, now, "%s is intact", p)
	}
	got := jsprof(t, "", "report", "--html", filepath.Join(dir, "page.html"), prof)
	require.Equal(t, 0, got.code, "a control: another --html is written: %s", got.stderr)
}

// TestSourceMapOpensOnlyFiles: the map a program's sourceMappingURL names
// is read only if it is a regular file; a FIFO of that name blocked jsprof
// run for ever. The run goes on with bundle positions, and says why.
func TestSourceMapOpensOnlyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "index.js")
	require.NoError(t, os.WriteFile(src, []byte("console.log(1);\n//# sourceMappingURL=index.js.map\n"), 0o644))
	module := buildJS(t, src)
	// A module names its program's file beside itself.
	require.NoError(t, syscall.Mkfifo(filepath.Join(filepath.Dir(module), "index.js.map"), 0o644))
	done := make(chan invocation, 1)
	go func() { done <- jsprof(t, "", "run", "-o", filepath.Join(dir, "p.pb.gz"), module) }()
	var got invocation
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute): // a guard, not a measurement
		t.Fatal("jsprof run blocked on the FIFO")
	}
	require.Equal(t, 0, got.code, got.stderr)
	assert.Contains(t, got.stderr, "index.js.map: not a regular file; showing bundle positions")
}
