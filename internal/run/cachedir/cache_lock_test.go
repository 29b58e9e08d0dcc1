//go:build unix

package cachedir

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestLockCompile: a second compile of the same module into the cache
// waits for the first to unlock; another module's does not (the negative
// control), nor one whose context is done; no directory locks nothing.
func TestLockCompile(t *testing.T) {
	t.Parallel()
	c := Cache{Dir: t.TempDir(), Limit: 1 << 20}
	unlock := c.LockCompile(context.Background(), []byte("module a"))

	waited := make(chan struct{})
	go func() {
		c.LockCompile(context.Background(), []byte("module a"))()
		close(waited)
	}()
	select {
	case <-waited:
		t.Fatal("a second compile of the same module did not wait")
	case <-time.After(200 * time.Millisecond): // waiting, as it should
	}

	other := make(chan struct{})
	go func() {
		c.LockCompile(context.Background(), []byte("module b"))()
		close(other)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stopped := make(chan struct{})
	go func() {
		c.LockCompile(ctx, []byte("module a"))()
		close(stopped)
	}()
	for name, ch := range map[string]chan struct{}{"another module": other, "a done context": stopped} {
		select {
		case <-ch:
		case <-time.After(time.Minute): // a guard, not a measurement
			t.Fatalf("%s waited for the lock", name)
		}
	}

	unlock()
	select {
	case <-waited:
	case <-time.After(time.Minute): // a guard, not a measurement
		t.Fatal("the waiting compile did not go on once unlocked")
	}
	assert.NotPanics(t, func() { Cache{}.LockCompile(context.Background(), []byte("x"))() })
}
