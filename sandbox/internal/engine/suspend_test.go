package engine

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// suspendedIDs lists the mounts of the chains out in Unlocked, the last to go out first.
// Lock held.
func suspendedIDs(l *Lock) []string {
	var ids []string
	for c := l.suspended; c != nil; c = c.out {
		ids = append(ids, c.Mount())
	}
	return ids
}

// TestSuspendedChainsResumeInAnyOrder pins the stack of chains out in Unlocked: two
// goroutines' chains go out one after the other, and the one that went out first comes
// back first (taken from under the other, not off the top); each is the lock's current
// chain again on return, and none is left on the stack.
func TestSuspendedChainsResumeInAnyOrder(t *testing.T) {
	l := newLock(t)
	a, b := newRealm(l, "a"), newRealm(l, "b")
	l.Lock()
	ea := a.Begin(context.Background(), Bound{What: "a", Limit: time.Second})
	chainA := l.Suspend() // a's goroutine is out in its Go call

	bOut, aBack := make(chan []string), make(chan struct{})
	done := make(chan struct{})
	go func() { // b's goroutine enters b and goes out too, then waits for a to come back
		defer close(done)
		l.Lock()
		eb := b.Begin(context.Background(), Bound{What: "b", Limit: time.Second})
		chainB := l.Suspend()
		l.Lock()
		bOut <- suspendedIDs(l)
		l.Unlock()
		<-aBack
		l.Resume(chainB)
		if l.Current() != eb {
			t.Errorf("after b resumed, the current entry is %v, want b's", l.Current())
		}
		if ids := suspendedIDs(l); len(ids) != 0 {
			t.Errorf("after both resumed, chains still out: %v", ids)
		}
		b.End(eb)
		l.Unlock()
	}()
	if diff := cmp.Diff([]string{"b", "a"}, <-bOut); diff != "" {
		t.Errorf("chains out in Unlocked (-want +got):\n%s", diff)
	}
	l.Resume(chainA)
	if l.Current() != ea {
		t.Errorf("after a resumed, the current entry is %v, want a's", l.Current())
	}
	if diff := cmp.Diff([]string{"b"}, suspendedIDs(l)); diff != "" {
		t.Errorf("chains out after a resumed (-want +got):\n%s", diff)
	}
	a.End(ea)
	l.Unlock()
	close(aBack)
	<-done
}
