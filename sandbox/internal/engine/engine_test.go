package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dop251/goja"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var errClosed = errors.New("closed")

// newLock returns a ready lock whose smallest bound is 16 ms (a 1 ms tick), closed when
// the test ends.
func newLock(t *testing.T) *Lock {
	t.Helper()
	l := &Lock{}
	l.Init(16*time.Millisecond, errClosed)
	t.Cleanup(func() {
		if err := l.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

func newRealm(l *Lock, id string) *Realm {
	r := &Realm{}
	r.Init(l, goja.New(), id)
	return r
}

// TestUnlockedReleasesAndRetakes pins that Unlocked frees the lock for another goroutine,
// and that on return the lock is held again with the caller's chain current.
func TestUnlockedReleasesAndRetakes(t *testing.T) {
	l := newLock(t)
	r := newRealm(l, "a")
	l.Lock()
	e := r.Begin(context.Background(), Bound{What: "outer", Limit: time.Second})
	entered := false
	l.Unlocked(func() {
		if l.mu.TryLock() {
			entered = l.cur == nil // a free lock has no current entry
			l.mu.Unlock()
		}
	})
	if !entered {
		t.Error("inside Unlocked, another taker found the lock held or a current entry")
	}
	if l.Current() != e {
		t.Errorf("after Unlocked, Current() = %p, want the caller's entry %p", l.Current(), e)
	}
	if l.mu.TryLock() {
		t.Error("after Unlocked the lock is free; want it held again")
	}
	r.End(e)
	l.Unlock()
}

// TestUnlockedPanicRetakesLock pins that a panic in fn leaves Unlocked with the lock held.
func TestUnlockedPanicRetakesLock(t *testing.T) {
	l := newLock(t)
	l.Lock()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic in fn did not go on")
			}
		}()
		l.Unlocked(func() { panic("bug") })
	}()
	if l.mu.TryLock() {
		t.Error("after a panic in Unlocked the lock is free; want it held")
	}
	l.Unlock()
}

// TestUnlockedWaitsForNestedEntries pins strict nesting: an entry another goroutine began
// in the caller's realm while the caller was out must end before Unlocked returns.
func TestUnlockedWaitsForNestedEntries(t *testing.T) {
	l := newLock(t)
	r := newRealm(l, "a")
	l.Lock()
	outer := r.Begin(context.Background(), Bound{What: "outer", Limit: time.Second})
	began, release, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	innerEnded := false // guarded by the lock
	l.Unlocked(func() {
		go func() {
			defer close(ended)
			l.Lock()
			inner := r.Begin(context.Background(), Bound{What: "inner", Limit: time.Second})
			l.Unlocked(func() {
				close(began)
				<-release
			})
			r.End(inner)
			innerEnded = true
			l.Unlock()
		}()
		<-began
		time.AfterFunc(20*time.Millisecond, func() { close(release) })
	})
	if !innerEnded {
		t.Error("Unlocked returned while an entry of its realm begun by another goroutine was in progress")
	}
	if got := r.Depth(); got != 1 {
		t.Errorf("Depth() = %d after the inner entry ended, want 1", got)
	}
	r.End(outer)
	l.Unlock()
	<-ended
}

// TestWatchdogInterruptsExpiredEntry pins that an entry past its bound interrupts its
// runtime with itself as the value, by its bound, and that End clears the interrupt.
func TestWatchdogInterruptsExpiredEntry(t *testing.T) {
	l := newLock(t)
	r := newRealm(l, "a")
	l.Lock()
	defer l.Unlock()
	e := r.Begin(context.Background(), Bound{What: "loop", Limit: 20 * time.Millisecond})
	_, err := r.rt.RunString(`for (;;) {}`)
	var ie *goja.InterruptedError
	if !errors.As(err, &ie) || ie.Value() != any(e) {
		t.Fatalf("RunString = %v, want an interrupt whose value is the entry", err)
	}
	if byBound, _ := e.Expiry(); !byBound {
		t.Error("Expiry() says the context ended; want the bound")
	}
	r.End(e)
	e2 := r.Begin(context.Background(), Bound{What: "after", Limit: time.Second})
	if v, err := r.rt.RunString(`1 + 1`); err != nil || v.ToInteger() != 2 {
		t.Errorf("after End the runtime still fails: %v, %v", v, err)
	}
	r.End(e2)
}

// TestContextInterruptsEntry pins that a cancelled context interrupts with its cause.
func TestContextInterruptsEntry(t *testing.T) {
	l := newLock(t)
	r := newRealm(l, "a")
	cause := errors.New("caller gave up")
	ctx, cancel := context.WithCancelCause(context.Background())
	l.Lock()
	defer l.Unlock()
	e := r.Begin(ctx, Bound{What: "loop", Limit: time.Minute})
	time.AfterFunc(10*time.Millisecond, func() { cancel(cause) })
	_, err := r.rt.RunString(`for (;;) {}`)
	var ie *goja.InterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("RunString = %v, want an interrupt", err)
	}
	if byBound, got := e.Expiry(); byBound || !errors.Is(got, cause) {
		t.Errorf("Expiry() = %v, %v; want the context's cause %v", byBound, got, cause)
	}
	r.End(e)
}

// TestExcuse pins the excuse rules: another realm's entry that runs while a chain is out
// in Unlocked does not count against the chain's entry, up to that entry's own limit.
func TestExcuse(t *testing.T) {
	for _, tt := range []struct {
		name      string
		limit     time.Duration
		other     time.Duration
		atLeast   time.Duration // Elapsed of the suspended entry after the other ran
		atMostOff time.Duration // Elapsed at most the other's run less this
	}{
		{name: "all excused", limit: time.Second, other: 100 * time.Millisecond, atMostOff: 50 * time.Millisecond},
		{name: "capped at the entry's limit", limit: 20 * time.Millisecond, other: 100 * time.Millisecond, atLeast: 70 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := newLock(t)
			a, b := newRealm(l, "a"), newRealm(l, "b")
			l.Lock()
			e := a.Begin(context.Background(), Bound{What: "waits in Go", Limit: tt.limit})
			l.Unlocked(func() {
				l.Lock()
				x := b.Begin(context.Background(), Bound{What: "listener", Limit: time.Second})
				time.Sleep(tt.other)
				b.End(x)
				l.Unlock()
			})
			got := l.Elapsed(e)
			if tt.atMostOff > 0 && got > tt.other-tt.atMostOff {
				t.Errorf("Elapsed = %v after another realm ran %v; want it excused", got, tt.other)
			}
			if got < tt.atLeast {
				t.Errorf("Elapsed = %v, want at least %v: an entry is excused at most its limit %v", got, tt.atLeast, tt.limit)
			}
			a.End(e)
			l.Unlock()
		})
	}
}

// TestGo pins the async calls' bookkeeping: settle runs under the lock after call, Idle
// closes when the last call settled, and a closed lock refuses new calls.
func TestGo(t *testing.T) {
	l := &Lock{}
	l.Init(16*time.Millisecond, errClosed)
	r := newRealm(l, "a")
	settled := make(chan bool, 1)
	l.Lock()
	ok := r.Go(0, func(ctx context.Context) {}, func() {
		settled <- !l.mu.TryLock() // the lock is held while settle runs
	})
	idle := r.Idle()
	l.Unlock()
	if !ok || idle == nil {
		t.Fatalf("Go = %v, Idle = %v; want started with a call in flight", ok, idle)
	}
	<-idle
	if !<-settled {
		t.Error("settle ran without the lock")
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	l.Lock()
	defer l.Unlock()
	if r.Go(0, func(context.Context) { t.Error("call ran after Close") }, func() {}) {
		t.Error("Go after Close reported started")
	}
}
