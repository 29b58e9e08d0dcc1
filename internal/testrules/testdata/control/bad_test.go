// Package control is the checker's negative control: bad_test.go breaks
// each rule once or more, each place marked with a "want" comment naming
// the rule; clean_test.go measures the same things where the rules allow
// it, and has no such comment.
package control

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jsprof/jsprof/internal/testrules"
)

// TestAllocationWhileOthersRun asserts on what the whole process
// allocated while parallel tests run beside it.
func TestAllocationWhileOthersRun(t *testing.T) {
	t.Parallel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before) // want process-state
	work()
	runtime.ReadMemStats(&after) // want process-state
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20))
}

// TestFast asserts on wall time, directly and through a variable.
func TestFast(t *testing.T) {
	start := time.Now()
	work()
	assert.Less(t, time.Since(start), time.Second) // want wall-time
	elapsed := time.Since(start)
	require.Less(t, elapsed.Seconds(), 1.0) // want wall-time
}

// heapCounter reads the process's allocation through runtime/metrics, two
// calls away from the test.
type heapCounter struct{ sample []metrics.Sample }

func (h *heapCounter) allocated() uint64 {
	metrics.Read(h.sample) // want process-state
	return h.sample[0].Value.Uint64()
}

func allocatedBy(h *heapCounter, f func()) uint64 {
	before := h.allocated()
	f()
	return h.allocated() - before
}

// TestAllocationThroughHelpers is sequential, and still shares its
// process with what other tests left running.
func TestAllocationThroughHelpers(t *testing.T) {
	h := &heapCounter{sample: []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}}
	assert.Less(t, allocatedBy(h, work), uint64(1<<20))
}

// peakRSS reads the process's peak resident set size: reached from a
// guarded test and from an unguarded one.
func peakRSS(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status") // want process-state
	require.NoError(t, err)
	return string(b)
}

func TestPeakIsolated(t *testing.T) {
	if testrules.RunIsolated(t) {
		return
	}
	t.Log(peakRSS(t))
}

func TestPeakLogged(t *testing.T) {
	t.Log(peakRSS(t)) // logged only, but in a process other tests share
}

// smapsFile is a /proc file of statistics, named away from where it is
// read.
const smapsFile = "/proc/self/smaps_rollup"

func TestSmaps(t *testing.T) {
	_, err := os.ReadFile(smapsFile) // want process-state
	require.NoError(t, err)
}

// TestGoroutinesLeft counts every goroutine of the process.
func TestGoroutinesLeft(t *testing.T) {
	before := runtime.NumGoroutine() // want process-state
	work()
	assert.LessOrEqual(t, runtime.NumGoroutine(), before) // want process-state
}

// TestAllocsInParallelSubtests counts allocations in subtests that run
// beside each other.
func TestAllocsInParallelSubtests(t *testing.T) {
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			assert.Zero(t, testing.AllocsPerRun(10, work)) // want parallel-allocs
		})
	}
}

// TestGuardAroundParallelSubtests: the guard isolates the test, whose
// parallel subtests still run beside each other.
func TestGuardAroundParallelSubtests(t *testing.T) {
	if testrules.RunIsolated(t) {
		return
	}
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			var m runtime.MemStats
			runtime.ReadMemStats(&m) // want process-state
			assert.Positive(t, m.TotalAlloc)
		})
	}
}

// timed returns how long f took, and a count.
func timed(f func()) (time.Duration, int) {
	start := time.Now()
	f()
	return time.Since(start), 3
}

// checkFast fails when d is a second or more.
func checkFast(t *testing.T, d time.Duration) {
	require.Less(t, d, time.Second) // want wall-time
}

// TestTimedHelpers: durations through a result, a parameter, a clock
// reading's Sub and a struct's fields.
func TestTimedHelpers(t *testing.T) {
	d, n := timed(work)
	if d > time.Second { // want wall-time
		t.Fatalf("took %v", d)
	}
	assert.Equal(t, 3, n)
	checkFast(t, d)

	t0 := time.Now()
	work()
	t1 := time.Now()
	switch {
	case t1.Sub(t0) > time.Second: // want wall-time
		t.Error("slow")
	}

	type run struct{ elapsed time.Duration }
	var a, b run
	a.elapsed, _ = timed(work)
	b.elapsed, _ = timed(work)
	assert.InDelta(t, 1, float64(a.elapsed)/float64(b.elapsed), 0.5) // want wall-time
}

func work() {
	_ = make([]byte, 1<<10)
}
