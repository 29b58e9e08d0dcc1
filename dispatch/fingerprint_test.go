package dispatch

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/wasmcore"
)

func testCatalog(t *testing.T) *catalog {
	t.Helper()
	cat, err := loadCatalog()
	require.NoError(t, err)
	return cat
}

func variantByID(t *testing.T, cat *catalog, id string) *tableVariant {
	t.Helper()
	for _, v := range cat.variants {
		if v.ID() == id {
			return v
		}
	}
	t.Fatalf("no variant %s", id)
	return nil
}

func TestCatalog(t *testing.T) {
	cat := testCatalog(t)
	bellardBlobs := map[string]bool{}
	for _, tb := range cat.tables {
		if tb.Engine == "bellard" {
			bellardBlobs[tb.HeaderBlob] = true
		}
	}
	for _, tb := range cat.tables {
		if tb.Engine == "quickjs-ng" {
			assert.False(t, bellardBlobs[tb.HeaderBlob], "%s is a pre-fork copy of a Bellard table", tb.ID)
		}
	}
	cases := []struct {
		id       string
		opCount  int
		records  int
		releases []string
	}{
		{"bellard-2024-02-10-1e182125", 248, 267, []string{"release 2024-02-14"}},
		{"bellard-2024-02-10-1e182125/no-bignum", 246, 265, []string{"release 2024-02-14"}},
		{"bellard-2025-12-22-7b98ddf0", 244, 263, []string{}},
		{"quickjs-ng-2025-04-02-bd5be754", 248, 266, []string{"v0.10.0", "v0.10.1", "v0.11.0"}},
		{"quickjs-ng-2026-05-17-ec2a5ad9", 252, 271, []string{"v0.15.0", "v0.15.1", "v0.16.0", "v0.16.1", "v0.16.2"}},
	}
	for _, tc := range cases {
		v := variantByID(t, cat, tc.id)
		assert.Len(t, v.opNames, tc.opCount, tc.id)
		assert.Len(t, v.records, tc.records, tc.id)
		assert.Equal(t, tc.releases, v.table.ShippedIn, tc.id)
		assert.Equal(t, "invalid", v.opNames[0])
		assert.Equal(t, uint32(1), v.packed[0], "invalid is {1, 0, 0, none}")
	}
	assert.True(t, cat.opCounts[248])
	assert.False(t, cat.opCounts[71])
}

// image returns data segments holding recs as 4- or 8-byte records at addr,
// leaving out the runs of zero bytes, as a snapshotter does.
func recordSegments(recs []uint32, addr uint32, stride int, names []uint32) []wasmcore.DataSegment {
	buf := make([]byte, len(recs)*stride)
	for i, r := range recs {
		if stride == 8 {
			binary.LittleEndian.PutUint32(buf[i*8:], names[i])
		}
		binary.LittleEndian.PutUint32(buf[i*stride+stride-4:], r)
	}
	var segs []wasmcore.DataSegment
	start := -1
	for i := 0; i <= len(buf); i++ {
		zero := i == len(buf) || buf[i] == 0 && (i+1 == len(buf) || buf[i+1] == 0)
		switch {
		case zero && start >= 0:
			segs = append(segs, wasmcore.DataSegment{Offset: wasmcore.ConstI32(int32(addr) + int32(start)), Init: buf[start:i]})
			start = -1
		case !zero && start < 0:
			start = i
		}
	}
	return segs
}

func TestFingerprintExactSplit(t *testing.T) {
	cat := testCatalog(t)
	v := variantByID(t, cat, "quickjs-ng-2025-04-02-bd5be754")
	// Surround the table with junk that is not a plausible record.
	recs := append(append([]uint32{0xFFFFFFFF}, v.packed...), 0xFFFFFFFF)
	segs := recordSegments(recs, 0x10000, 4, nil)
	require.Greater(t, len(segs), 1, "the table should be split into several segments")
	img := newMemImage(segs)
	m := cat.matchFingerprint(&img, nil)
	require.NotNil(t, m)
	assert.True(t, m.exact)
	assert.Equal(t, uint64(0x10004), m.run.addr+uint64(m.aln.runFirst*4))
	assert.Equal(t, v.opNames, m.opNames)
	assert.Empty(t, m.uncertain)
}

func TestFingerprintNamePointers(t *testing.T) {
	cat := testCatalog(t)
	v := variantByID(t, cat, "quickjs-ng-2026-01-29-909fd718")
	// Names in a string area at 0x1000, records (stride 8) at 0x8000.
	var strs []byte
	var ptrs []uint32
	for _, r := range v.records {
		ptrs = append(ptrs, 0x1000+uint32(len(strs)))
		strs = append(append(strs, r.name...), 0)
	}
	segs := append([]wasmcore.DataSegment{{Offset: wasmcore.ConstI32(0x1000), Init: strs}}, recordSegments(v.packed, 0x8000, 8, ptrs)...)
	img := newMemImage(segs)
	m := cat.matchFingerprint(&img, nil)
	require.NotNil(t, m)
	assert.True(t, m.exact)
	assert.Equal(t, 8, m.run.stride)
	assert.True(t, m.binaryNames)
	assert.Equal(t, v.opNames, m.opNames)
}

func TestFingerprintPatched(t *testing.T) {
	cat := testCatalog(t)
	v := variantByID(t, cat, "bellard-2025-04-16-f20fb110")
	// A patched engine: one regular record changed, one regular opcode
	// added after push_i32 (opcode 1).
	recs := append([]uint32(nil), v.packed...)
	recs[5] ^= 0x00010000 // n_push of opcode 5 differs
	extra := uint32(9) | 1<<8 | 1<<16 | 20<<24
	recs = append(recs[:2], append([]uint32{extra}, recs[2:]...)...)
	img := newMemImage(recordSegments(recs, 0x4000, 4, nil))
	m := cat.matchFingerprint(&img, nil)
	require.NotNil(t, m)
	assert.False(t, m.exact)
	assert.Equal(t, "bellard-2025-04-16-f20fb110", m.groups[0].variants[0].ID())
	assert.Equal(t, 1, m.aln.inserted)
	assert.Equal(t, 1, m.aln.mismatches)
	require.Len(t, m.opNames, len(v.opNames)+1)
	assert.Equal(t, "push_i32", m.opNames[1])
	assert.Equal(t, "", m.opNames[2])
	assert.Equal(t, v.opNames[2], m.opNames[3])
	var unc []int
	for _, u := range m.uncertain {
		unc = append(unc, u.Opcode)
	}
	assert.Equal(t, []int{2, 6}, unc)
}

func TestFingerprintNone(t *testing.T) {
	cat := testCatalog(t)
	// Small integers look like records but match no table.
	recs := make([]uint32, 300)
	for i := range recs {
		recs[i] = uint32(1 + i%7)
	}
	img := newMemImage(recordSegments(recs, 0x100, 4, nil))
	assert.Nil(t, cat.matchFingerprint(&img, nil))
	empty := newMemImage(nil)
	assert.Nil(t, cat.matchFingerprint(&empty, nil))
}

func TestMemImage(t *testing.T) {
	img := newMemImage([]wasmcore.DataSegment{
		{Offset: wasmcore.ConstI32(16), Init: []byte{1, 2, 3, 4}},
		{Offset: wasmcore.ConstI32(24), Init: []byte{5, 6}},
		{Offset: wasmcore.ConstI32(18), Init: []byte{9}},                           // later segments win
		{Offset: wasmcore.ConstI32(-8), Init: []byte{7, 7, 7, 7}},                  // near the top of memory
		{Mode: wasmcore.DataPassive, Init: []byte{1, 1, 1, 1, 1, 1}},               // not in memory
		{Offset: wasmcore.ConstExpr{Code: []byte{0x23, 0, 0x0B}}, Init: []byte{1}}, // global.get: unknown
	})
	require.Len(t, img.Chunks, 2)
	v, ok := img.readUint(16, 4)
	assert.True(t, ok)
	assert.Equal(t, uint64(0x04090201), v)
	b, ok := img.read(20, 6) // the gap reads as zero
	assert.True(t, ok)
	assert.Equal(t, []byte{0, 0, 0, 0, 5, 6}, b)
	_, ok = img.read(40, 4) // past the chunk and its zero padding
	assert.False(t, ok)
	v, ok = img.readUint(0xFFFFFFF8, 4)
	assert.True(t, ok)
	assert.Equal(t, uint64(0x07070707), v)
}
