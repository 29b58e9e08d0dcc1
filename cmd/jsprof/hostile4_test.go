package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// Issue 38, hostile round 4: the files jsprof writes.

// TestOutDirHeldFromBeforeTheGuest (N1): a guest granted the directory
// that holds --out-dir renames the folder and leaves a link to a folder
// outside in its place (testdata/outdir_attack.wat); each input's
// profile still goes into the folder jsprof opened before the guests
// ran, now renamed, and nothing reaches the link's target.
func TestOutDirHeldFromBeforeTheGuest(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	granted, elsewhere := filepath.Join(top, "granted"), filepath.Join(top, "elsewhere")
	require.NoError(t, os.MkdirAll(filepath.Join(granted, "out"), 0o755))
	require.NoError(t, os.Mkdir(elsewhere, 0o755))
	var inputs []string
	for _, name := range []string{"a.json", "b.json"} {
		in := filepath.Join(top, name)
		require.NoError(t, os.WriteFile(in, []byte("{}"), 0o644))
		inputs = append(inputs, "--input", in)
	}
	module, err := filepath.Abs(filepath.Join("testdata", "outdir_attack.wasm"))
	require.NoError(t, err)
	args := append(append([]string{"run", "-q", "--dir", granted}, inputs...), "--out-dir", filepath.Join(granted, "out"), "-o", filepath.Join(granted, "merged.pb.gz"), module)
	got := jsprof(t, "", args...)
	st, err := os.Lstat(filepath.Join(granted, "out"))
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&os.ModeSymlink, "the guest ran its attack: %s", got.stderr)
	moved, err := os.ReadDir(filepath.Join(granted, "moved"))
	require.NoError(t, err)
	var names []string
	for _, e := range moved {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"a.pb.gz", "b.pb.gz"}, names, "the profiles are in the folder opened before the guests ran")
	outside, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	assert.Empty(t, outside, "nothing written where the guest's link leads")
}

// TestOutputsInsideOutDir (N4): -o or --collapsed named like an input's
// profile in --out-dir would be replaced by it; it is refused, naming
// both, before anything runs.
func TestOutputsInsideOutDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	require.NoError(t, os.Mkdir(in, 0o755))
	for _, name := range []string{"a.json", "b.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(in, name), []byte("{}"), 0o644))
	}
	out := filepath.Join(dir, "out")
	clash := filepath.Join(out, "a.pb.gz")
	for _, tt := range []struct{ flag, want string }{
		{"-o", "-o and --out-dir both name " + clash},
		{"--collapsed", "--collapsed and --out-dir both name " + clash},
		{"--report-json", "--report-json and --out-dir both name " + clash},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			args := []string{"run", "--input", in, "--out-dir", out, tt.flag, clash, filepath.Join("testdata", "exit3.wasm")}
			if tt.flag != "-o" {
				args = append([]string{"run", "-o", filepath.Join(dir, tt.flag+".pb.gz")}, args[1:]...)
			}
			got := jsprof(t, "", args...)
			assert.Equal(t, cli.ExitUsage, got.code, got.stderr)
			assert.Contains(t, got.stderr, tt.want)
			assert.NoFileExists(t, clash)
		})
	}
}

// TestCompareKeepsItsInputs (N5): compare --out-dir keeps each side's
// module, profile and output (base.wasm, new.wasm, …); none may be a file
// compare reads (the README's --plugin new.wasm, the --stdin file) or
// its --html page, nor the page one it reads. Each is refused, naming
// both, before anything is built, and the file is left as it was.
func TestCompareKeepsItsInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugin := func(name string) string {
		b, err := os.ReadFile(fixtures.EnginePath(t, "javy-plugin-1.7.0"))
		require.NoError(t, err)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, b, 0o644))
		return path
	}
	old, new := plugin("old.wasm"), plugin("new.wasm")
	keep := filepath.Join(dir, "keep")
	require.NoError(t, os.Mkdir(keep, 0o755))
	stdin := filepath.Join(keep, "base.stdout")
	require.NoError(t, os.WriteFile(stdin, []byte("input"), 0o644))
	js := filepath.Join(dir, "app.js")
	require.NoError(t, os.WriteFile(js, []byte("console.log(1)\n"), 0o644))
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"a plugin", []string{"--out-dir", dir}, "--out-dir " + new + ": that is the new --plugin"},
		{"the stdin file", []string{"--out-dir", keep, "--stdin", stdin}, "--out-dir " + stdin + ": that is the guests' input"},
		{"the page", []string{"--out-dir", filepath.Join(dir, "other"), "--html", filepath.Join(dir, "other", "new.pb.gz")}, "--html and --out-dir both name"},
		{"the page over the JS", []string{"--html", js}, "--html " + js + ": that is the JS file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, err := os.ReadFile(new)
			require.NoError(t, err)
			args := append(append([]string{"compare", "--plugin", old, "--plugin", new}, tt.args...), js)
			got := jsprof(t, "", args...)
			assert.NotEqual(t, 0, got.code, got.stderr)
			assert.Contains(t, got.stderr, tt.want)
			after, err := os.ReadFile(new)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the plugin is left as it was")
			assert.NoFileExists(t, filepath.Join(dir, "base.wasm"), "nothing was built")
		})
	}
}

// TestHTMLReadsOnlyFilesUnderTheDirectory (N2): the HTML source view of
// a source-mapped profile reads the original files the profile names
// (those its map's sourcesContent does not hold) only as relative names
// under the current directory, regular files, bounded: a crafted profile
// naming a secret by its absolute path, or by a path out of the
// directory, puts none of it in the page; a file under the directory is
// read (the negative control).
func TestHTMLReadsOnlyFilesUnderTheDirectory(t *testing.T) {
	t.Parallel()
	secret, _ := secretFile(t, t.TempDir())
	text, err := os.ReadFile(secret)
	require.NoError(t, err)
	under := filepath.Join("testdata", "fib20.js") // relative to the test's directory, jsprof's current one
	fib, err := os.ReadFile(under)
	require.NoError(t, err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	outside, err := filepath.Rel(wd, secret) // ../../../tmp/…/secret.txt
	require.NoError(t, err)
	for _, tt := range []struct {
		name, file string
		read       bool
	}{
		{"absolute", secret, false},
		{"out of the directory", outside, false},
		{"under the directory", under, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			b := jsprofile.NewBuilder(jsprofile.Meta{Mode: jsprofile.ModeExact, TotalInstructions: 10,
				SourceMap: filepath.Join(dir, "absent.map"), GeneratedFile: "function.js"})
			b.Add([]jsprofile.Frame{jsprofile.JSFrame("f", tt.file, 1, 1, 0x1000, 0), jsprofile.OpcodeFrame("add", 157)}, 10, 1, 0)
			p, err := b.Profile()
			require.NoError(t, err)
			prof, page := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "p.html")
			f, err := os.Create(prof)
			require.NoError(t, err)
			require.NoError(t, jsprofile.Write(f, p))
			require.NoError(t, f.Close())
			got := jsprof(t, "", "report", "--html", page, prof)
			require.Equal(t, 0, got.code, got.stderr)
			html, err := os.ReadFile(page)
			require.NoError(t, err)
			assert.NotContains(t, string(html), strings.TrimSpace(string(text)), "the secret is not in the page")
			first := strings.SplitN(string(fib), "\n", 2)[0]
			if tt.read {
				assert.Contains(t, string(html), htmlEscape(first), "a file under the directory is shown")
			}
		})
	}
}

// TestPprofAddrBeyondThisMachine (N12): a --pprof-addr that answers
// beyond this machine (every interface, 0.0.0.0, which also answered on
// every IPv6 address) is said in one warning, the server having no
// authentication; the loopback is not (the control). 0.0.0.0 listens on
// IPv4 alone.
func TestPprofAddrBeyondThisMachine(t *testing.T) {
	t.Parallel()
	module := buildJS(t, fixtures.Path("js", "fib.js"))
	for _, tt := range []struct {
		addr  string
		warns bool
	}{
		{"0.0.0.0:0", true},
		{":0", true},
		{"127.0.0.1:0", false},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			got := jsprof(t, "", "run", "-q", "--mode", "sample", "--sample-every", "20000", "--pprof-addr", tt.addr, module)
			require.Equal(t, 0, got.code, got.stderr)
			warning := "jsprof: warning: --pprof-addr " + tt.addr + ": the guest's profile is served, without authentication, to anyone who can reach "
			if tt.warns {
				assert.Contains(t, got.stderr, warning)
			} else {
				assert.NotContains(t, got.stderr, "without authentication")
			}
			if tt.addr == "0.0.0.0:0" {
				assert.Regexp(t, `serving the running guest's profile at http://0\.0\.0\.0:[1-9]`, got.stderr, "IPv4 alone")
			}
		})
	}
}

// TestInputNamesKeptApart (N14): inputs whose names differ only by a
// control character (a folder's files) are two rows that read apart, the
// characters escaped (they showed as one name twice); a plain name is as
// it is (the control).
func TestInputNamesKeptApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"a\x1b.json", "a\x07.json", "plain.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644))
	}
	got := jsprof(t, "", "run", "-q", "--input", dir, filepath.Join("testdata", "exit3.wasm"))
	assert.Equal(t, 3, got.code, got.stderr)
	assert.Contains(t, got.stderr, `"`+filepath.Join(dir, `a\x1b.json`)+`"`)
	assert.Contains(t, got.stderr, `"`+filepath.Join(dir, `a\a.json`)+`"`)
	assert.Contains(t, got.stderr, filepath.Join(dir, "plain.json")+" ")
	assert.NotContains(t, got.stderr, "\x1b")
	assert.NotContains(t, got.stderr, "\x07")
}

// TestSourceMapBounded (N3): a source map past sourcemap.MaxBytes (32
// MiB; reading and checking one takes about 45 times its size) is
// refused in one warning before anything is parsed, and the run goes on
// with bundle positions; it was read up to 256 MiB (11.4 GB, 161 s
// before the guest ran).
func TestSourceMapBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	js := filepath.Join(dir, "app.js")
	require.NoError(t, os.WriteFile(js, []byte("console.log(1);\n//# sourceMappingURL=app.js.map\n"), 0o644))
	module := buildJS(t, js)
	big := append([]byte(`{"version":3,"sources":["a.ts"],"mappings":"AAAA`), make([]byte, 33<<20)...)
	for i := len(big) - 33<<20; i < len(big); i++ {
		big[i] = ';'
	}
	big = append(big, `"}`...)
	require.NoError(t, os.WriteFile(js+".map", big, 0o644))
	got := jsprof(t, "", "run", "-q", "--source", js, module)
	require.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, "1\n", got.stdout)
	assert.Contains(t, got.stderr, "too large: more than 32 MiB; showing bundle positions")
}

// TestSignalAbandonsTheSourceMap (N3): a SIGINT while jsprof run reads a
// hostile map (just under sourcemap.MaxBytes: 6.7M segments, seconds to
// decode) ends the run there: exit 130, the one line of an interruption,
// and the guest never runs (it would print "1"). The signal is sent once
// jsprof has read the map file and closed it (inotify), so it lands in
// the parse. It waited for the whole parse and check (20-60 s for maps
// of hundreds of MB).
func TestSignalAbandonsTheSourceMap(t *testing.T) {
	t.Parallel()
	bin := jsprofProcess(t)
	dir := t.TempDir()
	js := filepath.Join(dir, "app.js")
	require.NoError(t, os.WriteFile(js, []byte("console.log(1);\n//# sourceMappingURL=app.js.map\n"), 0o644))
	module := buildJS(t, js)
	mapFile := js + ".map"
	segs := (31 << 20) / len("AAAA,")
	hostile := `{"version":3,"sources":["a.ts"],"mappings":"AAAA` + strings.Repeat(",AAAA", segs) + `"}`
	require.NoError(t, os.WriteFile(mapFile, []byte(hostile), 0o644))

	in, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	require.NoError(t, err)
	defer syscall.Close(in)
	_, err = syscall.InotifyAddWatch(in, mapFile, syscall.IN_CLOSE_NOWRITE)
	require.NoError(t, err)

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "run", "--cache-dir", fixtures.CompileCacheDir(), "-o", filepath.Join(dir, "p.pb.gz"), "--source", js, module)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	event := make([]byte, syscall.SizeofInotifyEvent+syscall.NAME_MAX+1)
	_, err = syscall.Read(in, event) // the map read whole: its parse begins
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, stderr.String())
	assert.Equal(t, 130, exit.ExitCode())
	assert.Equal(t, "jsprof: interrupted by interrupt\n", stderr.String())
	assert.Empty(t, stdout.String(), "the guest never ran")
}
