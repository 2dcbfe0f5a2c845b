package runner

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// BenchmarkDefineRun measures Define + Run of the anchors' plugin body as a host half
// through the Go verbs (Undefine untimed; the run compiles the tree the define's check
// parsed), its parts (the define check; a host start from source), and the floor: the
// sandbox mounting the same body as a child fiber, as cordis_mount does. benchcmp reports the ratio through the tool registry; this is the one to profile
// (-cpuprofile).
func BenchmarkDefineRun(b *testing.B) {
	ctx := kit.WithSession(context.Background(), "bench")
	root := kit.New(nil)
	host := NewSandboxHost(&sandbox.Options{Facade: generated.Facade})
	r, err := New(root, &Options{Host: host})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := errors.Join(r.Dispose(ctx), root.Fiber().Dispose(ctx), host.Close(ctx)); err != nil {
			b.Error(err)
		}
	})
	body := benchfix.OnEvent(benchfix.PluginBody, "tools/change")
	seq := 0
	next := func() string { seq++; return benchfix.WithID(body, seq) }

	b.Run("define+run", func(b *testing.B) {
		for b.Loop() {
			code := next()
			d, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "bench"}, Name: "Bench", Purpose: "The anchors' body.", Code: dynamic.Code{Host: &code}})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if _, err := r.Undefine(ctx, dynamic.UndefineInput{PluginID: d.PluginID}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := host.Check("code.host", next()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("start", func(b *testing.B) {
		for b.Loop() {
			run, err := host.Start(ctx, root, HostSpec{PluginID: "bench-" + strconv.Itoa(seq), Code: next()})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := run.Stop(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("mount", func(b *testing.B) {
		for b.Loop() {
			m, err := host.Loop().Evaluate(ctx, "dyn-"+strconv.Itoa(seq), next())
			if err != nil {
				b.Fatal(err)
			}
			f, err := m.Start(ctx, root)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := errors.Join(f.Dispose(ctx), m.Close(ctx)); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}
