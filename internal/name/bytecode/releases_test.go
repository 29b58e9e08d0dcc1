package bytecode

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/bctest"
)

// releaseWant is, per release kept in testdata/releases, the layout it
// writes and its version byte; noTLA marks the releases before top-level
// await, which compile generators.js's rewritten tail (providerSource),
// sparseLines those whose pc → line tables skip fib's line 2.
// The files are golden output of native builds of each release's source
// with our own driver, made by fixtures/engines/goldens/build.sh.
var releaseWant = map[string]struct {
	layout      string
	version     byte
	noTLA       bool
	sparseLines bool
}{
	"bellard-2020-09-06":          {layout: "B2020a", version: 2, noTLA: true},
	"bellard-2024-01-13":          {layout: "B2024", version: 2},
	"bellard-2024-03-23-3b45d155": {layout: "B3", version: 0x43},
	"bellard-2025-04-26":          {layout: "B4", version: 4},
	"bellard-2025-09-13":          {layout: "B5b", version: 5},
	"bellard-2025-12-22-f1139494": {layout: "B5d", version: 5},
	"quickjs-ng-v0.1.0":           {layout: "NG01", version: 2},
	"quickjs-ng-v0.2.0":           {layout: "NG02", version: 3},
	"quickjs-ng-v0.4.1":           {layout: "NG03", version: 8},
	"quickjs-ng-v0.5.0":           {layout: "NG05", version: 0x0c},
	"quickjs-ng-v0.6.0":           {layout: "NG05", version: 0x0e},
	"quickjs-ng-v0.6.1":           {layout: "NG061", version: 0x10},
	"quickjs-ng-v0.8.0":           {layout: "NG061", version: 0x13, sparseLines: true},
	"quickjs-ng-v0.9.0":           {layout: "NG09", version: 0x13},
	"quickjs-ng-v0.10.1":          {layout: "NG10", version: 0x14},
	"quickjs-ng-v0.13.0":          {layout: "NG13", version: 0x18},
	"quickjs-ng-v0.14.0":          {layout: "NG13", version: 0x19},
	"quickjs-ng-v0.16.2":          {layout: "NG13", version: 0x1b},
}

// releasesPath joins elem under testdata/releases.
func releasesPath(elem ...string) string {
	return bctest.ReleasesPath(elem...)
}

// goldenReleases returns the releases of testdata/releases, sorted.
func goldenReleases(tb testing.TB) []string {
	tb.Helper()
	return bctest.Releases(tb)
}

// TestReleaseGoldens reads the golden bytecode of every release kept in
// testdata/releases with the engine description kept beside it: the
// version byte, the layout Parse selects for it, and every function named
// at its line (fib's table holding lines 2 and 3). The releases' calls.bc
// (whose calls internal/name/naming's TestCallNamesReleases names) is read too.
func TestReleaseGoldens(t *testing.T) {
	releases := goldenReleases(t)
	var want []string
	for r := range releaseWant {
		want = append(want, r)
	}
	slices.Sort(want)
	require.Equal(t, want, releases, "testdata/releases and releaseWant must list the same releases")
	for _, release := range releases {
		spec := readSpec(t, releasesPath(release+".json"))
		w := releaseWant[release]
		for _, program := range formatPrograms {
			t.Run(release+"/"+program, func(t *testing.T) {
				bc := readGolden(t, release, program)
				require.Equal(t, w.version, bc[0], "version byte")
				prog, err := Parse(bc, spec)
				require.NoError(t, err)
				assert.Equal(t, w.layout, prog.Layout.Name)
				assert.Equal(t, w.version, prog.Version)
				checkProviderNames(t, release, program, prog)
			})
		}
		t.Run(release+"/calls", func(t *testing.T) {
			bc := readGolden(t, release, "calls")
			require.Equal(t, w.version, bc[0], "version byte")
			prog, err := Parse(bc, spec)
			require.NoError(t, err)
			assert.Equal(t, w.layout, prog.Layout.Name)
			assert.NotEmpty(t, prog.Functions)
		})
	}
}

func readGolden(tb testing.TB, release, program string) []byte {
	tb.Helper()
	return bctest.ReleaseBytecode(tb, release, program)
}
