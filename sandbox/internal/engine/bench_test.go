package engine

import (
	"context"
	"sync"
	"testing"
	"time"
)

// BenchmarkUnlocked is what every synchronous JS → Go call of a binding pays for the lock:
// Unlocked around an empty Go call, from inside an entry (the chain suspended, the mutex
// released, retaken, the chain resumed).
func BenchmarkUnlocked(b *testing.B) {
	l := &Lock{}
	l.Init(time.Hour, errClosed)
	b.Cleanup(func() { _ = l.Close(b.Context()) })
	r := newRealm(l, "a")
	l.Lock()
	e := r.Begin(context.Background(), Bound{What: "bench", Limit: time.Hour})
	nothing := func() {}
	for b.Loop() {
		l.Unlocked(nothing)
	}
	r.End(e)
	l.Unlock()
}

// BenchmarkUnlockedFloor is its floor: a bare sync.Mutex released and retaken around the
// same empty call.
func BenchmarkUnlockedFloor(b *testing.B) {
	var mu sync.Mutex
	mu.Lock()
	nothing := func() {}
	for b.Loop() {
		mu.Unlock()
		nothing()
		mu.Lock()
	}
	mu.Unlock()
}
