package profiler

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jsprof/jsprof/internal/outfile"
	"github.com/jsprof/jsprof/internal/run/link"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/run/shopify"
)

// TestJobReads: the files no output may be are every file the job reads
// and those linking found, each named for what it is there.
func TestJobReads(t *testing.T) {
	t.Parallel()
	job := Job{ModulePath: "m.wasm", Plugins: []string{"plugin.wasm", "providers"}, Input: "in.json",
		Inputs: []string{"a.json"}, Profile: Options{Source: "app.js"}}
	tests := []struct {
		name   string
		linked link.Linking
		extra  []outfile.Named
	}{
		{"nothing linked", link.Linking{}, nil},
		{"a plugin and a provider", link.Linking{Plugin: &runner.Plugin{Name: "p.wasm"}, Provider: &shopify.Resolved{Path: "providers/v2.wasm"}},
			[]outfile.Named{{What: "the plugin linked", Path: "p.wasm"}, {What: "the provider linked", Path: "providers/v2.wasm"}}},
		{"a provider in memory", link.Linking{Provider: &shopify.Resolved{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := append([]outfile.Named{{What: "the module being run", Path: "m.wasm"}, {What: "the --source file", Path: "app.js"},
				{What: "the --input file", Path: "in.json"}, {What: "an --input file", Path: "a.json"},
				{What: "a --plugin", Path: "plugin.wasm"}, {What: "a --plugin", Path: "providers"}}, tt.extra...)
			assert.Equal(t, want, job.reads(tt.linked))
		})
	}
}
