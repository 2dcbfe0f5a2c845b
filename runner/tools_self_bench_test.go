package runner

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// BenchmarkInspectSelf measures the whole-session cordis_inspect_self {} through the tool
// registry, JSON in and out, over sessions of 100 and 1,000 running Plugins of 10 Packages
// each (benchcmp's runnerscale shape). The cost per Plugin listed should not grow with
// the number of Plugins; this is the one to profile (-cpuprofile, -memprofile). A listing
// allocates about one object per Plugin (the store's copy of its latest attempt) beside
// a few blocks for the whole answer; allocs/op shows it.
func BenchmarkInspectSelf(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			inv := inspectBenchRunner(b, n, 10)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := inv.InvokeSession(ctx, "bench", "cordis_inspect_self", []byte(`{}`)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/plugin")
		})
	}
}

// inspectBenchRunner returns an invoker over a runner whose session "bench" holds n
// Plugins of pkgs Packages each, every Plugin running its latest Package.
func inspectBenchRunner(b *testing.B, n, pkgs int) *invoke.Invoker {
	b.Helper()
	ctx := kit.WithSession(context.Background(), "bench")
	root := kit.New(nil)
	host := NewSandboxHost(&sandbox.Options{Facade: generated.Facade})
	r, err := New(root, &Options{Host: host, MaxPluginsPerSession: n, MaxPackagesPerSession: n * pkgs}) // past the default caps
	if err != nil {
		b.Fatal(err)
	}
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := errors.Join(inv.Close(ctx), r.Dispose(ctx), root.Fiber().Dispose(ctx), host.Close(ctx)); err != nil {
			b.Error(err)
		}
	})
	body := benchfix.OnEvent(benchfix.PluginBody, "tools/change")
	for i := range n {
		target := dynamic.Target{Kind: "new", IDPrefix: "bench"}
		var d dynamic.DefineOutput
		for j := range pkgs {
			code := benchfix.WithID(body, i*pkgs+j+1)
			if d, err = r.Define(ctx, dynamic.DefineInput{Plugin: target, Name: "Bench", Purpose: "The anchors' body.", Code: dynamic.Code{Host: &code}}); err != nil {
				b.Fatal(err)
			}
			target = dynamic.Target{Kind: "existing", PluginID: d.PluginID}
		}
		if _, err := r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
			b.Fatal(err)
		}
	}
	return inv
}
