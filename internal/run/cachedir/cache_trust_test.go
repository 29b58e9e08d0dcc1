package cachedir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrustDir: the cache is trusted only when no one but jsprof's own
// user can have written it: its directory and wazero's and jsprof's
// directories in it are the user's own, writable by no one else (a
// sticky bit notwithstanding). One it may not trust is said and left
// out: the run goes uncached. (Another user's: TestCacheOfAnotherUser,
// cmd/jsprof, which needs root.)
func TestTrustDir(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // in the error; "": trusted
	}{
		{"ours", func(*testing.T, string) {}, ""},
		{"not made yet", func(t *testing.T, dir string) { require.NoError(t, os.RemoveAll(dir)) }, ""},
		{"writable by others", func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o777)) }, "is writable by other users (mode 0777)"},
		{"sticky", func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o777|os.ModeSticky)) }, "is writable by other users"},
		{"writable by its group", func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o770)) }, "(mode 0770)"},
		{"wazero's directory writable by others", func(t *testing.T, dir string) {
			require.NoError(t, os.Chmod(filepath.Join(dir, "wazero-v0-test"), 0o757))
		}, "wazero-v0-test is writable by other users"},
		{"wazero's directory a link", func(t *testing.T, dir string) {
			sub := filepath.Join(dir, "wazero-v0-test")
			require.NoError(t, os.Remove(sub))
			require.NoError(t, os.Symlink(t.TempDir(), sub))
		}, "wazero-v0-test: not a directory"},
		{"a file", func(t *testing.T, dir string) {
			require.NoError(t, os.RemoveAll(dir))
			require.NoError(t, os.WriteFile(dir, nil, 0o600))
		}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "wazero-v0-test"), 0o700))
			tt.setup(t, dir)
			var warnings []error
			c := Cache{Dir: dir, Limit: 1 << 20, Warn: func(err error) { warnings = append(warnings, err) }}
			cache, err := c.Open()
			require.NoError(t, err)
			if tt.want == "" {
				assert.NotNil(t, cache)
				assert.Empty(t, warnings)
				assert.Equal(t, dir, c.Trusted().Dir)
				return
			}
			assert.Nil(t, cache, "not used")
			require.Len(t, warnings, 1)
			assert.Contains(t, warnings[0].Error(), tt.want)
			assert.Contains(t, warnings[0].Error(), "; running uncached")
			assert.Empty(t, c.Trusted().Dir)
		})
	}
}
