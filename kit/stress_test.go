package kit_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
)

// TestStress emits every dispatch mode from many goroutines while plugins (providers,
// consumers and listeners) load and dispose. It checks that no listener runs after its
// fiber's Dispose returned, and that the runtime ends exactly as it started.
func TestStress(t *testing.T) {
	d := 300 * time.Millisecond
	if testing.Short() {
		d = 50 * time.Millisecond
	}
	root := newRoot(t, nil)
	before := fmt.Sprint(root.Fibers(), root.Services())
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()

	var late atomic.Int64 // listener runs after their fiber's Dispose returned
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				tick.Emit(root, 1)
				flush.Emit(context.Background(), root, 1)
				check.Emit(context.Background(), root, "x")
				pick.Emit(root, "x")
				request.Emit(context.Background(), root, "x", nil)
			}
		})
	}
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				var gone atomic.Bool
				guard := func() {
					if gone.Load() {
						late.Add(1)
					}
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				var inject []string
				if i%3 == 1 {
					inject = []string{"greeter"}
				}
				f := root.Plugin(plugin(name, inject, func(c *kit.Context) error {
					if w == 0 && i%3 == 0 {
						if err := greeterSvc.Provide(c, english{}); err != nil {
							return nil // another worker's provider holds the key
						}
					}
					tick.On(c, func(int) { guard() })
					flush.On(c, func(context.Context, int) error { guard(); return nil })
					check.On(c, func(context.Context, string) (string, error) { guard(); return "", nil })
					pick.On(c, func(string) int { guard(); return 0 })
					request.On(c, func(ctx context.Context, p string, next func() (string, error)) (string, error) {
						guard()
						return next()
					})
					return nil
				}))
				if err := f.Dispose(context.Background()); err != nil {
					t.Error(err)
				}
				gone.Store(true)
			}
		})
	}
	wg.Wait()
	if n := late.Load(); n != 0 {
		t.Fatalf("%d listener calls ran after their fiber's Dispose returned", n)
	}
	if after := fmt.Sprint(root.Fibers(), root.Services()); after != before {
		t.Fatalf("runtime changed:\nbefore %s\nafter  %s", before, after)
	}
}
