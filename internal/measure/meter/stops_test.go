package meter_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/wasmcore"
)

// spinning is a module whose _start loops for ever calling $f, which does
// nothing: no checkpoint, no host call, nothing wazero checks when told
// not to close the module on a done context.
var spinning = []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
	1, 4, 1, 0x60, 0, 0, // type 0: () -> ()
	3, 3, 2, 0, 0, // functions 0 and 1 have type 0
	7, 10, 1, 6, '_', 's', 't', 'a', 'r', 't', 0, 0, // export _start: function 0
	10, 14, 2,
	9, 0, 0x03, 0x40, 0x10, 0x01, 0x0c, 0x00, 0x0b, 0x0b, // 0: loop, call 1, br 0, end, end
	2, 0, 0x0b, // 1: nothing
}

// TestAddStops: the loops of a module AddStops rewrote stop when the run's
// context is done (here its timeout), even kept open for the meter; the
// calls in the module are renumbered around the import, and a module
// without loops is left alone.
func TestAddStops(t *testing.T) {
	m, err := wasmcore.Decode(spinning)
	require.NoError(t, err)
	changed, err := meter.AddStops(m)
	require.NoError(t, err)
	require.True(t, changed)
	require.Len(t, m.Imports, 1)
	assert.Equal(t, wasmcore.Import{Module: meter.HostModule, Name: meter.HostStop, Kind: wasmcore.ExternFunc, Func: 0}, m.Imports[0])
	// loop, call 0 (the stop), call 2 (the no-op, renumbered), br 0
	assert.Equal(t, []byte{0x03, 0x40, 0x10, 0x00, 0x10, 0x02, 0x0c, 0x00, 0x0b, 0x0b}, m.Functions[0].Body)
	wasm, err := m.Encode()
	require.NoError(t, err)

	cause := errors.New("the test's timeout")
	ctx := runner.WithTimeout(context.Background(), 100*time.Millisecond, cause)
	res, err := runner.Run(ctx, wasm, runner.Options{Name: "spin.wasm", KeepOnContextDone: true, Link: meter.New(&meter.Plan{}).Link})
	require.NoError(t, err)
	assert.ErrorIs(t, res.Trap, cause)
	assert.Equal(t, uint32(cli.ExitTrap), res.ExitCode)

	noLoop := []byte{0, 'a', 's', 'm', 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 10, 4, 1, 2, 0, 0x0b}
	m, err = wasmcore.Decode(noLoop)
	require.NoError(t, err)
	changed, err = meter.AddStops(m)
	require.NoError(t, err)
	assert.False(t, changed)
	assert.Empty(t, m.Imports)
}
