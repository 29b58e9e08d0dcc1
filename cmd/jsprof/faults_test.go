package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
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
		{"instruction limit", "testdata/forever.js", []string{"--max-instructions", "3000000"}, exitLimit, "stopped: the guest reached the instruction limit (3000000 Wasm instructions)", ""},
		{"timeout", "testdata/forever.js", []string{"--timeout", "300ms"}, exitLimit, "stopped after --timeout 300ms", ""},
		{"instruction limit, sampling", "testdata/forever.js", []string{"--mode", "sample", "--max-instructions", "3000000"}, exitLimit, "instruction limit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			module := buildJS(t, tt.src)
			out := filepath.Join(t.TempDir(), "p.pb.gz")
			got := jsprof(t, "", append(append([]string{"run", "-o", out}, tt.flags...), module)...)
			assert.Equal(t, tt.code, got.code)
			lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
			assert.Contains(t, lines[len(lines)-1], tt.stderr, "jsprof's own line comes last: %q", got.stderr)
			assert.True(t, strings.HasPrefix(lines[len(lines)-1], "jsprof: "))

			p := readProfile(t, out)
			assert.NotEmpty(t, p.Sample)
			hasTrap := false
			for _, c := range p.Comments {
				hasTrap = hasTrap || strings.HasPrefix(c, "jsprof.trap=")
			}
			assert.True(t, hasTrap, "the profile says how the guest ended")
			if strings.Contains(tt.name, "instruction limit") && !strings.Contains(tt.name, "sampling") {
				total := sampleTotal(p)
				assert.InDelta(t, 3000000, total, 200, "stopped within a segment of the limit")
			}
		})
	}
}

// TestInterruptWritesTheProfile sends SIGINT and SIGTERM to a jsprof
// process running a guest that never ends.
func TestInterruptWritesTheProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jsprof binary")
	}
	bin := filepath.Join(t.TempDir(), "jsprof")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	module := buildJS(t, "testdata/forever.js")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			prof := filepath.Join(t.TempDir(), "p.pb.gz")
			cmd := exec.Command(bin, "run", "--progress", "50ms", "--cache-dir", filepath.Join(fixtures.CacheDir(), "wazero"), "-o", prof, module)
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			// Signal once the guest runs (its first progress line), however
			// long compiling took on a loaded machine.
			lines := bufio.NewScanner(stderr)
			var rest []string
			for lines.Scan() {
				if strings.HasPrefix(lines.Text(), "jsprof: running:") {
					break
				}
				rest = append(rest, lines.Text())
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
			assert.Equal(t, []string{"jsprof: interrupted by " + sig.String()}, rest)
			p := readProfile(t, prof)
			assert.Positive(t, sampleTotal(p))
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
	assert.Equal(t, exitLimit, got.code)
	lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
	require.GreaterOrEqual(t, len(lines), 3, got.stderr)
	assert.Regexp(t, `^jsprof: running: [0-9.]+[kMG]? Wasm instructions, [0-9.]+m?s$`, lines[len(lines)-2])
	assert.Equal(t, "jsprof: stopped after --timeout 700ms", lines[len(lines)-1])

	quiet := jsprof(t, "", "run", "-q", "--progress", "100ms", "--timeout", "500ms", module)
	assert.Equal(t, "jsprof: stopped after --timeout 500ms\n", quiet.stderr)
}
