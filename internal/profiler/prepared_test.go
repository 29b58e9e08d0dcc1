package profiler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/profiler"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/view/report"
)

// TestPreparedCache: a second run of an engine reads its analysis and
// instrumented module from the cache and profiles exactly as the first; a
// damaged entry is removed and made again, and the run still profiles.
func TestPreparedCache(t *testing.T) {
	cache := fixtures.CompilationCache(t)
	wasm := staticFib(t, cache, "javy-plugin-1.7.0")
	dir := t.TempDir()
	run := func() *report.Tables {
		var stdout bytes.Buffer
		out, res, err := profiler.Profile(context.Background(), wasm,
			runner.Options{Name: "fib.wasm", Stdout: &stdout, Cache: cache, Deterministic: true},
			profiler.Options{Source: "fib.js", CacheDir: dir})
		require.NoError(t, err)
		require.Nil(t, res.Trap)
		require.Equal(t, "fib(20) = 6765\n", stdout.String())
		return out.Tables
	}
	entries := func() []string {
		names, err := filepath.Glob(filepath.Join(dir, "jsprof-prepared-v1", "*"))
		require.NoError(t, err)
		return names
	}

	first := run()
	made := entries()
	require.Len(t, made, 2, "an entry: the instrumented module and its analysis")
	info, err := os.Stat(made[0])
	require.NoError(t, err)

	second := run()
	assert.Equal(t, first.Opcodes, second.Opcodes)
	assert.Equal(t, first.Functions, second.Functions)
	assert.Equal(t, first.Phases, second.Phases)
	assert.Equal(t, first.TotalWasmInstructions, second.TotalWasmInstructions)
	again, err := os.Stat(made[0])
	require.NoError(t, err)
	assert.Equal(t, info.ModTime(), again.ModTime(), "read, not written again")

	for _, damage := range []func(string) error{
		func(p string) error { return os.WriteFile(p, []byte("{"), 0o644) }, // truncated JSON
		func(p string) error {
			return os.WriteFile(p, []byte(`{"report":{},"plan":{},"wasm_sha256":""}`), 0o644)
		}, // incomplete
		func(p string) error { // the engine's facts (natives, bytecode spec) lost
			var entry map[string]json.RawMessage
			b, err := os.ReadFile(p)
			if err == nil {
				err = json.Unmarshal(b, &entry)
			}
			if err != nil {
				return err
			}
			if _, ok := entry["facts"]; !ok {
				return errors.New("the entry keeps no facts")
			}
			delete(entry, "facts")
			if b, err = json.Marshal(entry); err != nil {
				return err
			}
			return os.WriteFile(p, b, 0o644)
		},
	} {
		var meta string
		for _, p := range entries() {
			if filepath.Ext(p) == ".json" {
				meta = p
			}
		}
		require.NotEmpty(t, meta)
		require.NoError(t, damage(meta))
		third := run()
		assert.Equal(t, first.Opcodes, third.Opcodes, "made again")
		assert.Equal(t, first.Functions, third.Functions, "made again")
		assert.Len(t, entries(), 2)
		b, err := os.ReadFile(meta)
		require.NoError(t, err)
		var entry map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &entry), "made again")
		assert.Contains(t, entry, "facts", "made again")
	}
	// The instrumented module altered: its digest no longer matches.
	for _, p := range entries() {
		if filepath.Ext(p) == ".wasm" {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			b[len(b)-1] ^= 0xff
			require.NoError(t, os.WriteFile(p, b, 0o644))
		}
	}
	fourth := run()
	assert.Equal(t, first.Functions, fourth.Functions)
}
