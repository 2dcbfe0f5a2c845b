package runner

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// BenchmarkToolCallAnnounce measures a cordis_stop of a defined Plugin that does not run
// through the registry, where the runner announces it, while nobody listens and while
// one listener does; the floor is the same tool unannounced (Runner.Tools).
func BenchmarkToolCallAnnounce(b *testing.B) {
	ctx := kit.WithSession(context.Background(), "bench")
	root := kit.New(nil)
	r, err := New(root, &Options{Host: &fakeHost{}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := errors.Join(r.Dispose(ctx), root.Fiber().Dispose(ctx)); err != nil {
			b.Error(err)
		}
	})
	code := "return () => {}"
	d, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "bench"}, Name: "Bench", Purpose: "Stopped.", Code: dynamic.Code{Host: &code}})
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"pluginId":"` + d.PluginID + `"}`)
	tools, _ := kit.ToolsService.Get(root)
	var bare kit.Tool
	for _, t := range r.Tools() {
		if t.Name == "cordis_stop" {
			bare = t
		}
	}
	loop := func(b *testing.B, call func() error) {
		for b.Loop() {
			if err := call(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("floor-unannounced", func(b *testing.B) {
		loop(b, func() error { _, err := bare.Execute(ctx, args); return err })
	})
	b.Run("unheard", func(b *testing.B) {
		loop(b, func() error { _, err := tools.Call(ctx, "cordis_stop", args); return err })
	})
	b.Run("heard", func(b *testing.B) {
		heard := 0
		f := root.Plugin(&kit.Plugin{Name: "bench-listener", Apply: func(c *kit.Context) error {
			_, err := ToolCall.On(c, func(ToolCallEvent) { heard++ })
			return err
		}})
		if err := f.Err(); err != nil {
			b.Fatal(err)
		}
		loop(b, func() error { _, err := tools.Call(ctx, "cordis_stop", args); return err })
		if err := f.Dispose(ctx); err != nil {
			b.Fatal(err)
		}
		if heard == 0 {
			b.Fatal("the listener heard no call")
		}
	})
}
