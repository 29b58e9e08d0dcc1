package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
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
			assert.Equal(t, exitUsage, got.code)
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

// withStartLoop writes a copy of the module at path given a start
// function that loops for ever, and returns the copy's path.
func withStartLoop(t *testing.T, path string) string {
	t.Helper()
	wasm, err := os.ReadFile(path)
	require.NoError(t, err)
	m, err := wasmcore.Decode(wasm)
	require.NoError(t, err)
	loop := m.AddFunction(wasmcore.Function{Type: m.AddType(wasmcore.FuncType{}), Body: []byte{0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b}}) // loop br 0 end end
	m.Start = &loop
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
	plugin := fixtures.EnginePath(t, "javy-plugin-1.7.0")
	static := withStartLoop(t, buildJS(t, fixtures.Path("js", "fib.js")))
	loopingPlugin := withStartLoop(t, plugin)
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
			assert.Equal(t, exitLimit, got.code, got.stderr)
			lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
			assert.Equal(t, tt.line, lines[len(lines)-1])
			if !tt.profile {
				return
			}
			p, err := jsprofile.ReadFile(prof)
			require.NoError(t, err, got.stderr)
			require.NotNil(t, p.Meta.ExitCode)
			assert.Equal(t, exitLimit, *p.Meta.ExitCode)
		})
	}
}
