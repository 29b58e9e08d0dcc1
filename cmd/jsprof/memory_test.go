package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// TestGuestMemoryAsUnprofiled: the linear memory a run reports is the
// guest's, as an unprofiled run of it has it: not the meter's counter
// pages, not the pages a static module's detached program is put back in,
// not the gap the meter leaves the guest to grow into (meter/memview.go).
// A guest that grows past that gap (256 MiB) sees the real memory, with
// the meter's pages and the program's inside it, from then on; they are
// taken out, and its allocator starts a new segment there, as documented
// (one page more than unprofiled). Before that was seen, such a run
// reported the meter's and the program's pages as the guest's.
func TestGuestMemoryAsUnprofiled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		src   string
		extra uint64 // bytes the profiled guest may take beyond the plain one's
	}{
		{"within the gap", fib30, 0},
		{"past the gap", "const chunks = [];\nfor (let i = 0; i < 20; i++) chunks.push(new Uint8Array(16 * 1024 * 1024));\nconsole.log(chunks.length);\n", 65536},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wasm := buildSource(t, "javy-plugin-1.7.0", tt.src)
			dir := t.TempDir()
			module := filepath.Join(dir, "index.wasm")
			require.NoError(t, os.WriteFile(module, wasm, 0o644))

			ctx := context.Background()
			r := wazero.NewRuntime(ctx)
			defer r.Close(ctx)
			mod, err := plainInstance(ctx, r, wasm, wazero.NewModuleConfig())
			require.NoError(t, err)
			plain := uint64(mod.Memory().Size())

			report := filepath.Join(dir, "report.json")
			got := jsprof(t, "", "run", "--report-json", report, "-o", filepath.Join(dir, "p.pb.gz"), module)
			require.Equal(t, 0, got.code, got.stderr)
			var tables struct {
				Run struct {
					Memory uint64 `json:"linear_memory_bytes"`
				} `json:"run"`
			}
			require.NoError(t, json.Unmarshal([]byte(readFileText(t, report)), &tables))
			assert.GreaterOrEqual(t, tables.Run.Memory, plain)
			assert.LessOrEqual(t, tables.Run.Memory, plain+tt.extra, "plain wazero's %d bytes", plain)
		})
	}
}
