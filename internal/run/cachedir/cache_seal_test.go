package cachedir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyEntries: before wazero opens the cache, an entry not as
// sealed is dropped and said; one rewritten with the same content is
// sealed again and kept; one with no seal (a run killed after compiling
// left it, maybe damaged since) is dropped without a word, never sealed
// as it is, as is one others may write and anything not a regular file.
func TestVerifyEntries(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v0-test")
	require.NoError(t, os.Mkdir(sub, 0o700))
	entry := func(name, content string) string {
		p := filepath.Join(sub, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	sealed, damaged, rewritten, shared := entry("sealed", "code"), entry("damaged", "code"), entry("rewritten", "code"), entry("shared", "code")
	Cache{Dir: dir}.Seal()
	require.NoError(t, os.WriteFile(damaged, []byte("codf"), 0o600))
	require.NoError(t, os.WriteFile(rewritten, []byte("code"), 0o600))
	require.NoError(t, os.Chmod(shared, 0o666))
	unsealed := entry("unsealed", "new code")
	link := filepath.Join(sub, "link")
	require.NoError(t, os.Symlink(sealed, link))
	var warnings []error
	verifyEntries(dir, func(err error) { warnings = append(warnings, err) })
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	assert.True(t, exists(sealed))
	assert.False(t, exists(damaged), "not as sealed: dropped")
	assert.False(t, exists(damaged+sealSuffix))
	assert.True(t, exists(rewritten), "the same content: kept")
	assert.False(t, exists(unsealed) || exists(unsealed+sealSuffix), "no seal: dropped, not sealed")
	assert.False(t, exists(shared) || exists(shared+sealSuffix), "writable by others: dropped")
	assert.False(t, exists(link), "not a regular file: dropped")
	require.Len(t, warnings, 1)
	assert.ErrorIs(t, warnings[0], ErrDamaged)
	assert.Contains(t, warnings[0].Error(), "(damaged, not as sealed)")
}

// TestSealTrims: sealing what a run compiled trims the cache to its
// size, so that it is within it when the run ends; a run that compiled
// nothing (nothing to seal) leaves the cache as it is.
func TestSealTrims(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v0-test")
	require.NoError(t, os.Mkdir(sub, 0o700))
	old := filepath.Join(sub, "old")
	require.NoError(t, os.WriteFile(old, make([]byte, 600), 0o600))
	Cache{Dir: dir, Limit: 1 << 20}.Seal()
	require.FileExists(t, old+sealSuffix)
	Cache{Dir: dir, Limit: 500}.Seal() // nothing new: not trimmed
	assert.FileExists(t, old)

	require.NoError(t, os.WriteFile(filepath.Join(sub, "new"), make([]byte, 600), 0o600))
	Cache{Dir: dir, Limit: 1000}.Seal()
	left, err := filepath.Glob(filepath.Join(sub, "*"))
	require.NoError(t, err)
	assert.Len(t, left, 2, "one entry and its seal: %v", left)
}
