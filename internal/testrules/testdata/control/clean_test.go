package control

import (
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/testrules"
)

func TestMain(m *testing.M) {
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats) // TestMain is no test
	os.Exit(m.Run())
}

// bytesAllocated is what f allocates, reached only from behind guards and
// from a benchmark.
func bytesAllocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestIsolatedAllocation measures in a process of its own.
func TestIsolatedAllocation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("re-runs the test binary")
	}
	if testrules.RunIsolated(t) {
		return
	}
	assert.Less(t, bytesAllocated(work), uint64(1<<20))
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	t.Logf("%d goroutines, %d bytes allocated", runtime.NumGoroutine(), stats.TotalAlloc)
}

// TestIsolatedSubtests: each subtest in a process of its own.
func TestIsolatedSubtests(t *testing.T) {
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if testrules.RunIsolated(t) {
				return
			}
			assert.Less(t, bytesAllocated(work), uint64(1<<20))
		})
	}
}

func BenchmarkAllocation(b *testing.B) {
	var n uint64
	for range b.N {
		n += bytesAllocated(work)
	}
	b.ReportMetric(float64(n)/float64(b.N), "alloc-bytes/op")
	start := time.Now()
	work()
	if time.Since(start) > time.Second {
		b.Fatal("benchmarks may judge time")
	}
}

func FuzzAllocation(f *testing.F) {
	f.Add([]byte("seed"))
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		metrics.Read(s)
		before := s[0].Value.Uint64()
		_ = append([]byte(nil), data...)
		metrics.Read(s)
		if s[0].Value.Uint64()-before > uint64(64*len(data)+1<<20) {
			t.Fatal("fuzz targets run one input at a time")
		}
	})
}

// TestTimesLogged logs durations, and judges none.
func TestTimesLogged(t *testing.T) {
	start := time.Now()
	work()
	elapsed := time.Since(start)
	t.Logf("took %v", elapsed)
	if elapsed > time.Minute {
		t.Skip("a skip is no failure")
	}
	assert.Equal(t, 2*time.Second, 2000*time.Millisecond, "constant durations")
}

// TestDeadlines polls with a deadline, and fails when it passes: a clock
// reading, not a measured duration.
func TestDeadlines(t *testing.T) {
	done := false
	for deadline := time.Now().Add(5 * time.Second); !done && time.Now().Before(deadline); {
		done = true
	}
	require.True(t, done)
	deadline := time.Now().Add(time.Minute)
	if time.Now().After(deadline) {
		t.Fatal("timed out")
	}
	now := time.Now()
	written := now.Add(-time.Hour)
	assert.True(t, written.Before(now.Add(time.Second)))
}

// TestAllocsSequential counts allocations with nothing beside it.
func TestAllocsSequential(t *testing.T) {
	assert.Zero(t, testing.AllocsPerRun(10, func() {}))
}

// TestPathsUnderProc names a /proc path that is no statistics file.
func TestPathsUnderProc(t *testing.T) {
	_, err := os.Stat("/proc/self/jsprof-cache")
	assert.Error(t, err)
}

// TestErrorInBranch: an error's Error method fails no test.
func TestErrorInBranch(t *testing.T) {
	start := time.Now()
	err := os.ErrNotExist
	if time.Since(start) > time.Hour {
		t.Log(err.Error())
	}
}
