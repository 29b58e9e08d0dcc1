package meter_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero/api"

	"github.com/jsprof/jsprof/fixtures"
	"github.com/jsprof/jsprof/internal/measure/costs"
	"github.com/jsprof/jsprof/internal/measure/meter"
	"github.com/jsprof/jsprof/internal/run/runner"
	"github.com/jsprof/jsprof/internal/testrules"
	"github.com/jsprof/jsprof/jsframes/jsprofile"
)

// tamperTarget is one finished run of tinyJS on a real engine, whose
// counters the tests write over as the guest could, then restore.
type tamperTarget struct {
	mt    *meter.Meter
	mem   api.Memory
	clean *costs.Results
	saved [][]byte // the reserved regions as the run left them
	block uint64   // the running block and slot globals as it left them
	slot  uint64
}

func newTamperTarget(tb testing.TB) *tamperTarget {
	tb.Helper()
	wasm, plan := engineModule(tb, "javy-plugin-1.7.0", tinyJS, meter.Options{Checkpoints: true})
	mt, res := engineRun(context.Background(), tb, wasm, plan, runner.Options{})
	require.Nil(tb, res.Trap)
	clean, err := mt.Collect()
	require.NoError(tb, err)
	require.NotEmpty(tb, clean.Functions)
	tt := &tamperTarget{mt: mt, mem: mt.Memory(), clean: clean,
		block: mt.Global(meter.ExportBlock), slot: mt.Global(meter.ExportSlot)}
	for _, r := range mt.Reserved() {
		b, ok := tt.mem.Read(r[0], r[1]-r[0])
		require.True(tb, ok)
		tt.saved = append(tt.saved, append([]byte(nil), b...))
	}
	return tt
}

// restore puts back what the run left.
func (tt *tamperTarget) restore(tb testing.TB) {
	for i, r := range tt.mt.Reserved() {
		require.True(tb, tt.mem.Write(r[0], tt.saved[i]))
	}
	tt.mt.SetGlobal(meter.ExportBlock, tt.block)
	tt.mt.SetGlobal(meter.ExportSlot, tt.slot)
}

// reservedSize is the bytes of all reserved regions together.
func (tt *tamperTarget) reservedSize() uint32 {
	var n uint32
	for _, r := range tt.mt.Reserved() {
		n += r[1] - r[0]
	}
	return n
}

// patch writes p, repeated to fill n bytes, at offset at of the reserved
// regions taken end to end (wrapping around them).
func (tt *tamperTarget) patch(at uint32, p []byte, n uint32) {
	if len(p) == 0 {
		return
	}
	total := tt.reservedSize()
	regions := tt.mt.Reserved()
	for i := uint32(0); i < n; i++ {
		off := (at + i) % total
		for _, r := range regions {
			if size := r[1] - r[0]; off < size {
				tt.mem.WriteByte(r[0]+off, p[i%uint32(len(p))])
				break
			} else {
				off -= size
			}
		}
	}
}

// collect runs Collect and returns what it allocated too.
func (tt *tamperTarget) collect() (*costs.Results, error, uint64) {
	before := allocated()
	res, err := tt.mt.Collect()
	return res, err, allocated() - before
}

// maxCollectAlloc bounds what Collect may allocate for tinyJS's few
// functions, whatever the guest left in its memory.
const maxCollectAlloc = 4 << 20

// TestCollectTampered: a guest that writes over the counters in its memory
// (whole fills of 0xff, 0x7f, 0x00 as at the end of a run, one header,
// one count, the running block) makes Collect return ErrTampered, on one
// line naming what is wrong, with the results that can be trusted: the
// total and every function, the tampered blocks' counts left out. It never
// panics and allocates within a bound fixed by what the meter made. It
// runs in a process of its own, where what the heap allocated is what
// Collect did.
func TestCollectTampered(t *testing.T) {
	if testrules.RunIsolated(t) {
		return
	}
	tt := newTamperTarget(t)
	le := binary.LittleEndian
	block := tt.mt.FunctionBlock(0)
	limit, ok := tt.mem.ReadUint32Le(block + meter.BlockLimit)
	require.True(t, ok)
	callSetup := block + meter.BlockHeader + limit*meter.SlotSize + meter.SlotInstrs
	fill := func(b byte) func() {
		return func() { tt.patch(0, []byte{b}, tt.reservedSize()) }
	}
	tests := []struct {
		name    string
		tamper  func()
		want    string // in the error; "" for none
		allLost bool   // every block fails its checks
	}{
		{"untouched", func() {}, "", false},
		{"0xff everywhere", fill(0xff), "header says base 0xffffffff, limit 4294967295", true},
		{"0x7f everywhere", fill(0x7f), "header says base 0x7f7f7f7f, limit 2139062143", true},
		{"0x00 everywhere", fill(0x00), "header says base 0x0, limit 0, check 0x0", true},
		{"a block's limit", func() { tt.mem.WriteUint32Le(block+meter.BlockLimit, 0x7f7f7f7f) }, "limit 2139062143", false},
		{"one instruction more", func() {
			v, _ := tt.mem.ReadUint64Le(callSetup)
			tt.mem.WriteUint64Le(callSetup, v+1)
		}, "the counter says", false},
		{"a count past the counter", func() {
			tt.mem.WriteUint64Le(callSetup, tt.clean.TotalInstructions+1)
		}, "instructions, of", false},
		{"a huge count", func() {
			var b [8]byte
			le.PutUint64(b[:], 1<<63)
			tt.mem.Write(callSetup, b[:])
		}, "instructions, of", false},
		{"the running block", func() { tt.mt.SetGlobal(meter.ExportBlock, 12345) }, "the running block 0x3039", false},
		{"the running slot", func() { tt.mt.SetGlobal(meter.ExportSlot, 1<<30) }, "the running slot 1073741824", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt.restore(t)
			tc.tamper()
			res, err, alloc := tt.collect()
			assert.Less(t, alloc, uint64(maxCollectAlloc), "allocated")
			require.NotNil(t, res, "the results that can be trusted")
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.clean, res)
				return
			}
			require.ErrorIs(t, err, meter.ErrTampered)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Equal(t, tt.clean.TotalInstructions, res.TotalInstructions, "the counter is not in guest memory")
			require.Len(t, res.Functions, len(tt.clean.Functions))
			var self uint64
			for i, f := range res.Functions {
				assert.Equal(t, tt.clean.Functions[i].Address, f.Address)
				assert.Equal(t, tt.clean.Functions[i].Length, f.Length)
				self += f.SelfInstructions
			}
			// What the trusted counters do not place is charged to one
			// bucket, so that the results still add up to the counter.
			require.NoError(t, res.Check(), "the results add up")
			tampered := bucket(res, jsprofile.BucketTampered)
			assert.Positive(t, tampered)
			assert.Contains(t, err.Error(), "charged to "+jsprofile.BucketTampered)
			if tc.allLost {
				assert.Zero(t, self, "no count of a tampered block is used")
				for _, b := range res.Buckets {
					if b.Name != jsprofile.BucketTampered {
						assert.Zero(t, b.Instructions, b.Name)
					}
				}
				assert.Equal(t, res.TotalInstructions, tampered, "the whole run is the guest's doing")
			}
		})
	}
	tt.restore(t)
	res, err := tt.mt.Collect()
	require.NoError(t, err)
	assert.Equal(t, tt.clean, res, "Collect reads and changes nothing")
}

// bucket is the instructions of the named bucket of res, 0 if it has none.
func bucket(res *costs.Results, name string) uint64 {
	for _, b := range res.Buckets {
		if b.Name == name {
			return b.Instructions
		}
	}
	return 0
}

// TestTamperedForgedBlocks: counters forged to pass their checks (the
// check word is no secret) but adding up to more than the counter cannot
// be told from honest ones: none is trusted, and the whole run is charged
// to the tampered bucket, the functions still listed.
func TestTamperedForgedBlocks(t *testing.T) {
	tt := newTamperTarget(t)
	t.Cleanup(func() { tt.restore(t) })
	tt.restore(t)
	// Every function's block says its call setup ran the whole counter and
	// nothing else ran: each block passes its checks (its header intact,
	// its slots within the counter), their sum with the outside bucket's
	// does not.
	for i := range tt.clean.Functions {
		block := tt.mt.FunctionBlock(i)
		limit, ok := tt.mem.ReadUint32Le(block + meter.BlockLimit)
		require.True(t, ok)
		slots := block + meter.BlockHeader
		require.True(t, tt.mem.Write(slots, make([]byte, (limit+1)*meter.SlotSize)))
		require.True(t, tt.mem.WriteUint64Le(slots+limit*meter.SlotSize+meter.SlotInstrs, tt.clean.TotalInstructions))
	}
	res, err := tt.mt.Collect()
	require.ErrorIs(t, err, meter.ErrTampered)
	assert.Contains(t, err.Error(), "the counter says", "every block passed its checks; their sum did not")
	assert.NotContains(t, err.Error(), "header says")
	require.NotNil(t, res)
	require.NoError(t, res.Check(), "the results add up")
	assert.Equal(t, tt.clean.TotalInstructions, bucket(res, jsprofile.BucketTampered))
	require.Len(t, res.Functions, len(tt.clean.Functions))
	for i, f := range res.Functions {
		assert.Equal(t, tt.clean.Functions[i].Address, f.Address)
		assert.Zero(t, f.SelfInstructions)
		assert.Empty(t, f.Opcodes)
	}
	assert.Empty(t, res.WasmSplits)
}

// TestTamperedTableDuringRun: a guest that fills the meter's address table
// before it runs would leave the module's lookup (whose instructions are
// not counted, so no checkpoint can stop it) searching for ever, and the
// host's inserts too. The lookup gives up after every entry and asks the
// host, which repairs the table: the run ends, counted exactly as an
// untouched one, and Collect says what happened.
func TestTamperedTableDuringRun(t *testing.T) {
	wasm, plan := engineModule(t, "javy-plugin-1.7.0", tinyJS, meter.Options{Checkpoints: true})
	mt, _ := engineRun(context.Background(), t, wasm, plan, runner.Options{})
	clean, err := mt.Collect()
	require.NoError(t, err)

	m := meter.New(plan)
	cache := fixtures.CompilationCache(t)
	done := make(chan struct{})
	var res runner.Result
	var results *costs.Results
	go func() {
		defer close(done)
		res, err = runner.Run(context.Background(), wasm, runner.Options{
			Name: "index.wasm", Deterministic: true, KeepOnContextDone: true, Cache: cache, Link: m.Link, Context: m.Context,
			Instantiated: func(ctx context.Context, mod api.Module) error {
				if err := m.Start(ctx, mod); err != nil {
					return err
				}
				base, size := m.HashTable()
				mod.Memory().Write(base, bytes.Repeat([]byte{0xff}, int(size)))
				return nil
			},
		})
		if err == nil {
			results, err = m.Collect()
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end")
	}
	require.Nil(t, res.Trap)
	require.ErrorIs(t, err, meter.ErrTampered)
	assert.Contains(t, err.Error(), "while it ran: the address table at")
	require.NotNil(t, results)
	assert.Equal(t, clean.TotalInstructions, results.TotalInstructions)
	assert.Equal(t, clean.Functions, results.Functions, "lookups are not counted: the counts are exact")
	assert.NoError(t, results.Check())
}

// FuzzCollectTampered runs tinyJS on a real engine once, then for each
// input writes its bytes over the meter's regions of the guest memory — at
// an offset into them, once, or repeated to fill them all — and collects:
// Collect never panics, allocates within maxCollectAlloc, and returns
// results whose parts add up to the counter, with no error or with
// ErrTampered (what the counters cannot place then charged to
// BucketTampered). (A write that only moves counts between slots, or
// changes executions alone within the counter, keeps every invariant the
// host can check: such results come back without an error.)
func FuzzCollectTampered(f *testing.F) {
	tt := newTamperTarget(f)
	size := tt.reservedSize()
	rel := func(addr uint32) uint32 {
		var off uint32
		for _, r := range tt.mt.Reserved() {
			if addr >= r[0] && addr < r[1] {
				return off + addr - r[0]
			}
			off += r[1] - r[0]
		}
		f.Fatalf("%#x is in no reserved region", addr)
		return 0
	}
	block := tt.mt.FunctionBlock(0)
	limit, _ := tt.mem.ReadUint32Le(block + meter.BlockLimit)
	f.Add(uint32(0), []byte{0xff}, true)
	f.Add(uint32(0), []byte{0x7f}, true)
	f.Add(uint32(0), []byte{0x00}, true)
	f.Add(uint32(0), []byte{0x01, 0x00, 0x00, 0x80}, true)
	f.Add(rel(block)+meter.BlockLimit, []byte{0xff, 0xff, 0xff, 0x7f}, false)
	f.Add(rel(block+meter.BlockHeader+limit*meter.SlotSize), []byte{1, 0, 0, 0, 0, 0, 0, 0x80}, false)
	f.Fuzz(func(t *testing.T, at uint32, p []byte, fill bool) {
		tt.restore(t)
		n := min(uint32(len(p)), size)
		if fill {
			n = size
		}
		tt.patch(at, p, n)
		res, err, alloc := tt.collect()
		require.Less(t, alloc, uint64(maxCollectAlloc), "allocated")
		require.NotNil(t, res)
		assert.Equal(t, tt.clean.TotalInstructions, res.TotalInstructions)
		assert.Len(t, res.Functions, len(tt.clean.Functions))
		if err != nil {
			require.ErrorIs(t, err, meter.ErrTampered)
		}
		// Tampered or not, the results add up: what cannot be placed is
		// in the tampered bucket.
		require.NoError(t, res.Check())
	})
}
