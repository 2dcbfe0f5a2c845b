package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// BenchmarkInventoryPage measures what a page's reload costs the runner with 1,000
// Plugins of 50 sessions, each Package with a 200-byte purpose, encoding included (the
// panel sends the JSON): the bounded answer (InventoryPage, every session's and one
// session's) beside the whole listing (Inventory), its floor.
func BenchmarkInventoryPage(b *testing.B) {
	ctx := context.Background()
	root := kit.New(nil)
	r, err := New(root, &Options{Host: &fakeHost{}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		r.Dispose(ctx)
		root.Fiber().Dispose(ctx)
	})
	purpose := strings.Repeat("p", 200)
	for i := range 1000 {
		host := idleHost
		if _, err := r.Define(kit.WithSession(ctx, fmt.Sprintf("s%d", i%50)), dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "bench"}, Name: "Bench", Purpose: purpose, Code: dynamic.Code{Host: &host}}); err != nil {
			b.Fatal(err)
		}
	}
	for _, bm := range []struct {
		name string
		read func() (any, error)
	}{
		{"whole", func() (any, error) { return r.Inventory(ctx) }},
		{"page-all", func() (any, error) { return r.InventoryPage(ctx, InventoryScope{Every: true}) }},
		{"page-session", func() (any, error) { return r.InventoryPage(ctx, InventoryScope{Session: "s7"}) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				v, err := bm.read()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
