package toolset_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// spinFor is a mount whose tool spin_NAME spins ms milliseconds of JavaScript per call.
func spinFor(name string, ms int) string {
	return fmt.Sprintf(`return { name: '%s', apply(ctx) {
		ctx.tools.register({ name: 'spin_%s', description: 'spins', execute: () => { const t = Date.now(); while (Date.now() - t < %d) {} return 'spun' } })
	} }`, name, name, ms)
}

// A session's mounts and tool calls do not wait for another session's JavaScript: while
// alice's mount spins in its body and then her tool spins back to back, bob mounts, calls
// his tool and unmounts, each within a small part of alice's spin. Under one lock (or one
// mount mutex) for every session, bob would wait for each of alice's spins to end.
func TestSessionsDoNotWaitForEachOthersJavaScript(t *testing.T) {
	const spin = 800 // ms, under every bound below
	h := newHarnessOpts(t, &toolset.Options{Timeouts: &sandbox.Timeouts{VM: 2 * time.Second, Mount: 2 * time.Second, Call: 2 * time.Second}})
	h.mountAs("bob", `return { name: 'bob', apply(ctx) { ctx.tools.register({ name: 'bob_echo', description: 'd', execute: () => 'bob' }) } }`)

	var wg sync.WaitGroup
	defer wg.Wait()
	started := make(chan struct{})
	wg.Go(func() {
		close(started)
		// A body that spins, then a tool that spins, called back to back.
		h.mountAs("alice", fmt.Sprintf(`{ const t = Date.now(); while (Date.now() - t < %d) {} }`, spin)+spinFor("alice", spin))
		for range 2 {
			if out, err := h.callAs("alice", "spin_alice", map[string]any{}); err != nil || string(out) != `"spun"` {
				t.Errorf("alice's spin: %s %v", out, err)
			}
		}
	})
	<-started
	time.Sleep(50 * time.Millisecond) // alice is spinning
	// The bound: each of bob's operations ends within a quarter of alice's spin — it waits
	// for none of her JavaScript (it still shares the cores with it).
	const bound = spin / 4 * time.Millisecond
	deadline := time.Now().Add(3 * spin * time.Millisecond)
	var worst time.Duration
	for n := 0; time.Now().Before(deadline); n++ {
		start := time.Now()
		if out, err := h.callAs("bob", "bob_echo", map[string]any{}); err != nil || string(out) != `"bob"` {
			t.Fatalf("bob's call: %s %v", out, err)
		}
		if n%10 == 0 {
			m := h.mountAs("bob", `return { name: 'bob-temp', apply(ctx) {} }`)
			if _, err := h.callAs("bob", "cordis_unmount", map[string]string{"id": m.ID}); err != nil {
				t.Fatal(err)
			}
		}
		worst = max(worst, time.Since(start))
		time.Sleep(10 * time.Millisecond)
	}
	if worst > bound {
		t.Errorf("bob's slowest mount or call took %v while alice's JavaScript spun %dms at a time; want at most %v", worst, spin, bound)
	}
	t.Logf("bob's slowest operation: %v (bound %v)", worst, bound)
}

// A session's engine is the sandbox's while the session has a mount: made by its first
// cordis_mount, released by its last cordis_unmount.
func TestMountEngineReleasedWithTheSessionsLastMount(t *testing.T) {
	h := newHarness(t)
	a1 := h.mountAs("alice", `return (ctx) => {}`)
	a2 := h.mountAs("alice", `return (ctx) => {}`)
	b := h.mountAs("bob", `return (ctx) => {}`)
	if got := toolset.Engines(h.ts); got != 2 {
		t.Errorf("Engines = %d with mounts of two sessions, want 2", got)
	}
	for _, u := range []struct {
		session, id string
		want        int
	}{{"alice", a1.ID, 2}, {"alice", a2.ID, 1}, {"bob", b.ID, 0}} {
		out, err := h.callAs(u.session, "cordis_unmount", map[string]string{"id": u.id})
		if err != nil {
			t.Fatalf("unmount %s: %v", u.id, err)
		}
		var res struct{ ID string }
		if err := json.Unmarshal(out, &res); err != nil || res.ID != u.id {
			t.Fatalf("unmount %s: %s", u.id, out)
		}
		if got := toolset.Engines(h.ts); got != u.want {
			t.Errorf("Engines = %d after %s's unmount of %s, want %d", got, u.session, u.id, u.want)
		}
	}
}
