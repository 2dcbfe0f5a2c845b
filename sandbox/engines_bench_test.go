package sandbox

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkCrossMountCall is a call through the membrane, ctx.svc.inc(x) in a JavaScript
// loop (a view read and a wrapped call per turn), with the provider in the consumer's
// engine (its floor: both realms under one lock) and in another session's (each crossing
// leaves the consumer's engine and takes the provider's). ns/op is one turn.
func BenchmarkCrossMountCall(b *testing.B) {
	for _, tc := range []struct{ name, provider string }{{"one-engine", "bob"}, {"two-engines", "alice"}} {
		b.Run(tc.name, func(b *testing.B) {
			h := newHost(b, &Timeouts{VM: time.Minute, Mount: time.Minute, Call: time.Minute})
			h.mountIn(tc.provider, []string{"svc"}, nil, `return { name: 'p', apply(ctx) { ctx.provide('svc', { inc(x) { return x + 1 } }) } }`)
			mc, _ := h.mountIn("bob", nil, nil, `return { name: 'c', inject: ['svc'], apply(ctx) {
				globalThis.loop = (n) => { let x = 0; for (let i = 0; i < n; i++) x = ctx.svc.inc(x); return x }
			} }`)
			b.ReportAllocs()
			b.ResetTimer()
			got, err := run(mc.realm, fmt.Sprintf("loop(%d)", b.N))
			b.StopTimer()
			if err != nil || got.ToInteger() != int64(b.N) {
				b.Fatalf("loop(%d) = %v, %v", b.N, got, err)
			}
		})
	}
}
