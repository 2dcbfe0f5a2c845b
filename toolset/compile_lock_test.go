package toolset_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// TestSlowCompileHoldsNoLock: compiling mount code runs before any time bound and cannot be
// interrupted, so it must not hold the lock that mounts and unmounts share. While a large
// mount compiles (the nesting work bound raised so it takes a while), another mount is
// unmounted, a new one mounted and unmounted, and the runtime inspected, all promptly.
func TestSlowCompileHoldsNoLock(t *testing.T) {
	h := newHarnessOpts(t, &toolset.Options{Limits: &sandbox.Limits{MaxNestingWork: 1 << 40}})
	other := h.mount("return (ctx) => {}")
	code := strings.Repeat("function f() {", 240) + strings.Repeat("a;", 120_000) + strings.Repeat("}", 240) + "\nreturn (ctx) => {}"
	in, _ := json.Marshal(map[string]string{"code": code})

	var wg sync.WaitGroup
	defer wg.Wait()
	slow := make(chan error, 1)
	start := time.Now()
	wg.Go(func() {
		_, err := h.tools.Call(context.Background(), "cordis_mount", in)
		slow <- err
	})
	time.Sleep(50 * time.Millisecond) // the slow mount is compiling

	h.mustCall("cordis_unmount", map[string]string{"id": other.ID})
	again := h.mount("return (ctx) => {}")
	h.mustCall("cordis_unmount", map[string]string{"id": again.ID})
	h.inspect("temporary", "")
	others := time.Since(start)
	select {
	case err := <-slow:
		t.Fatalf("the slow mount ended (%v) before the other operations did (%v): make it slower", err, others)
	default:
	}
	if others > time.Second {
		t.Errorf("the other operations took %v while a mount compiled", others)
	}
	if err := <-slow; err != nil {
		t.Fatalf("slow mount: %v", err)
	}
	t.Logf("the other operations took %v; the slow mount %v", others, time.Since(start))
}
