package kit_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

// Floor for per-listener emit cost: a call through an interface held in a slice.
type handler interface{ Handle(int) }
type counter struct{ n int }

func (c *counter) Handle(v int) { c.n += v }

var sink int

func BenchmarkFloorInterfaceCall(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			hs := make([]handler, n)
			c := &counter{}
			for i := range hs {
				hs[i] = c
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, h := range hs {
					h.Handle(1)
				}
			}
			sink = c.n
		})
	}
}

// BenchmarkEmit reports ns/op for one Emit to n Go listeners; divide by n for the
// per-listener cost.
func BenchmarkEmit(b *testing.B) {
	for _, n := range []int{0, 1, 10, 100} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := kit.New(nil)
			defer root.Fiber().Dispose(context.Background())
			ev := kit.NewEvent[int]("bench/emit")
			total := 0
			for i := range n {
				root.Plugin(&kit.Plugin{Name: fmt.Sprint("l", i), Apply: func(c *kit.Context) error {
					_, err := ev.On(c, func(v int) { total += v })
					return err
				}})
			}
			b.ReportAllocs()
			for b.Loop() {
				ev.Emit(root, 1)
			}
			if n > 0 && total == 0 {
				b.Fatal("listeners never ran")
			}
		})
	}
}

// BenchmarkFiberCreateDispose measures starting a plugin with one listener and disposing it.
func BenchmarkFiberCreateDispose(b *testing.B) {
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	p := &kit.Plugin{Name: "p", Apply: func(c *kit.Context) error {
		_, err := tick.On(c, func(int) {})
		return err
	}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		f := root.Plugin(p)
		if err := f.Dispose(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProvideInject measures a provider appearing and its dependent activating, then
// both going away.
func BenchmarkProvideInject(b *testing.B) {
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	consumer := root.Plugin(&kit.Plugin{Name: "consumer", Inject: []string{"greeter"}, Apply: noop})
	prov := provider("provider")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p := root.Plugin(prov)
		if consumer.State() != kit.StateActive {
			b.Fatal("consumer did not activate")
		}
		p.Dispose(ctx)
	}
}

// BenchmarkDisposeAmongMany disposes and re-creates one listening plugin while 10,000
// others listen to the same event: the cost must not grow with the others.
func BenchmarkDisposeAmongMany(b *testing.B) {
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	p := &kit.Plugin{Name: "p", Apply: func(c *kit.Context) error {
		_, err := tick.On(c, func(int) {})
		return err
	}}
	for range 10_000 {
		root.Plugin(p)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := root.Plugin(p).Dispose(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
