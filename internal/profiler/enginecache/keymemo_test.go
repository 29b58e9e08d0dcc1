package enginecache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/measure/meter"
)

// TestKeyMemo: a key is remembered by the module file's identity, under
// one set of options; a file changed, or changed too recently, has none.
func TestKeyMemo(t *testing.T) {
	cache := t.TempDir()
	module := filepath.Join(t.TempDir(), "index.wasm")
	require.NoError(t, os.WriteFile(module, []byte("module one"), 0o644))
	written := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(module, written, written))
	now := time.Now()
	exact := meter.Options{Checkpoints: true, WasmStacks: true}
	key := strings.Repeat("ab", 32)

	memo := NewKeyMemo(cache, module, exact, now)
	require.NotNil(t, memo)
	_, ok := memo.Load()
	assert.False(t, ok, "nothing remembered yet")
	memo.Store(Remembered{Key: key, Segment: 3})
	got, ok := NewKeyMemo(cache, module, exact, now).Load()
	require.True(t, ok, "remembered for the same file")
	assert.Equal(t, Remembered{Key: key, Segment: 3}, got)

	_, ok = NewKeyMemo(cache, module, meter.Options{Sample: true}, now).Load()
	assert.False(t, ok, "other meter options: another key")

	// The same size, another time: another file.
	require.NoError(t, os.WriteFile(module, []byte("module two"), 0o644))
	require.NoError(t, os.Chtimes(module, written.Add(time.Second), written.Add(time.Second)))
	_, ok = NewKeyMemo(cache, module, exact, now).Load()
	assert.False(t, ok, "a changed file is digested anew")

	require.NoError(t, os.Chtimes(module, now, now))
	assert.Nil(t, NewKeyMemo(cache, module, exact, now.Add(settleTime/2)), "a file changed within the settle time")
	assert.Nil(t, NewKeyMemo("", module, exact, now), "no cache")
	assert.Nil(t, NewKeyMemo(cache, filepath.Join(t.TempDir(), "absent.wasm"), exact, now), "no file")

	// A damaged memo is no memo.
	require.NoError(t, os.Chtimes(module, written, written))
	damaged := NewKeyMemo(cache, module, exact, now)
	require.NotNil(t, damaged)
	for _, content := range []string{"", "{", `{"key":"zz","segment":1}`, `{"key":"` + key + `","segment":-2}`} {
		require.NoError(t, os.MkdirAll(filepath.Dir(damaged.path), 0o755))
		require.NoError(t, os.WriteFile(damaged.path, []byte(content), 0o644))
		_, ok := damaged.Load()
		assert.False(t, ok, "memo %q", content)
	}
}
