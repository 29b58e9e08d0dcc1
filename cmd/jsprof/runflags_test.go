package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/wasmcore"
)

// TestRunFlagCombinations: jsprof run's flags are checked together, in
// one place (runFlags.check), before anything is read: each combination
// that cannot be followed is a usage error naming the flags, and each that
// can is accepted with what it implies.
func TestRunFlagCombinations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string // "" accepted; else the message, exit 2
	}{
		{[]string{"m.wasm"}, ""},
		{[]string{"--mode", "sample", "--sample-every", "10", "--pprof-addr", "localhost:0", "m.wasm"}, ""},
		{[]string{"--mode", "off", "--timeout", "1s", "m.wasm"}, ""},
		{[]string{"--report", "--report-json", "r.json", "--wasm-stack-every", "5", "--max-instructions", "9", "m.wasm"}, ""},
		{[]string{"--codec", "json", "--cost", "all", "--dir", dir, "m.wasm", "--", "a"}, ""},
		{[]string{"--mode", "fast", "m.wasm"}, `--mode "fast": want exact, sample or off`},
		{[]string{"--mode", "off", "--report", "m.wasm"}, "--report, --report-json, --collapsed and --html need a profiling --mode"},
		{[]string{"--mode", "off", "--collapsed", "c.txt", "m.wasm"}, "--report, --report-json, --collapsed and --html need a profiling --mode"},
		{[]string{"--mode", "sample", "--report", "--report-json", "r.json", "m.wasm"}, ""},
		{[]string{"--pprof-addr", "localhost:0", "m.wasm"}, "--pprof-addr needs --mode sample"},
		{[]string{"--mode", "sample", "--pprof-addr", "nowhere", "m.wasm"}, "--pprof-addr nowhere: want HOST:PORT"},
		{[]string{"--mode", "off", "--max-instructions", "5", "m.wasm"}, "--max-instructions counts instructions: it needs a profiling --mode"},
		{[]string{"--cost", "time", "m.wasm"}, `--cost "time": want fuel or all`},
		{[]string{"--codec", "xml", "m.wasm"}, "--codec: "},
		{[]string{"--mode", "sample", "--sample-every", "0", "m.wasm"}, "--sample-every 0: want a period of at least 1 instruction"},
		{[]string{"--sample-every", "10", "m.wasm"}, "--sample-every needs --mode sample"},
		{[]string{"--mode", "sample", "--wasm-stack-every", "10", "m.wasm"}, "--wasm-stack-every needs --mode exact"},
		{[]string{"--dir", "", "m.wasm"}, "empty --dir"},
		{[]string{"--dir", dir + "/missing", "m.wasm"}, "--dir " + dir + "/missing: not a directory"},
		{[]string{}, "jsprof: run: no module given"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var errOut strings.Builder
			var f runFlags
			code, done := parseRun(&f, tt.args, stdio{err: &errOut})
			if tt.want == "" {
				require.False(t, done, errOut.String())
				assert.Equal(t, "m.wasm", f.module)
				return
			}
			assert.True(t, done)
			assert.Equal(t, cli.ExitUsage, code)
			assert.Contains(t, errOut.String(), tt.want)
		})
	}

	// What check derives from the flags the job is made of.
	var f runFlags
	_, done := parseRun(&f, []string{"--codec", "messagepack", "--cost", "all", "--dir", dir + ":/data", "m.wasm", "--", "--x", "y"}, stdio{err: &strings.Builder{}})
	require.False(t, done)
	assert.Equal(t, wasmcore.CostAll, f.cost)
	require.NotNil(t, f.codec)
	assert.Equal(t, "messagepack", f.codec.String())
	assert.Equal(t, []string{"--x", "y"}, f.guestArgs)
	require.Len(t, f.mounts, 1)
	assert.Equal(t, "/data", f.mounts[0].Guest)
}
