// Command benchcmp measures cordiskit's performance figures, each beside its floor in the
// same process, and prints one markdown table:
//
//	go run ./internal/cmd/benchcmp            # the documented run: 5 rounds, about 2 minutes
//	go run ./internal/cmd/benchcmp -quick     # a smoke run, about 10 seconds
//	go run ./internal/cmd/benchcmp -scale     # the scale sweeps (also: go test -run TestScale)
//
// docs/PERFORMANCE.md quotes its latest output and explains each figure.
//
// # Figures and floors
//
// Every figure is measured against a floor that does the same job with nothing but goja
// or Go: the anchors' bare goja host (anchors-bench/go/host.go) for mounts, heap and
// Go → JS calls; a hand-written native goja function for JS → Go calls; an interface
// method call for Go → Go emit; a bare packages.Load of the same patterns for the
// generator and the freshness gate.
//
//   - mount p50/p99 of plugin-body.js through cordis_mount (a JSON tool call through the
//     kit's registry) against a bare goja runtime evaluating the same body; target ratio
//     ≤ 1.25 for the p50 with every bound in force, ≤ 1.5 for the p99.
//   - unmount to quiescence p50/p99 through cordis_unmount; target ≤ 20 µs.
//   - heap per live mount with 1,000 mounts alive; target ≤ 48 KiB.
//   - Go event → one more JavaScript listener, with the payload converted to positional
//     arguments, against a bare goja call with a prebuilt argument; target ≤ 1.5 µs and
//     ≤ 2.5× the floor.
//   - Go → Go typed emit per listener against an interface method call; target ≤ 20 ns and
//     0 allocations.
//   - JavaScript → Go service call through the generated binding of the kit's tools
//     service (generated.Facade) against a hand-written native function, net of the loop
//     around it; target ≤ 1.2×.
//   - runner: cordis_define + cordis_run of the body as a host-only Package (two JSON tool
//     calls) against cordis_mount of the same body in the same runtime; target ≤ 1.3×.
//     Invoke of a host handler from Go against the sandbox calling the same function
//     (≤ 1.5×), and the heap a defined Package keeps (≤ its source + 2 KiB).
//   - sessions: a bystander session's tool call p99 while two other sessions each call a
//     tool that spins JavaScript back to back, against the same call on the idle runtime;
//     target ≤ 3×. Two sessions' independent JavaScript, calls/s with GOMAXPROCS=2 against
//     GOMAXPROCS=1; target ≥ 1.7×, read beside the same for a Go loop (what the machine
//     gives two threads at the moment).
//   - gen-cordis-api and verify-cordis-api wall time on a synthetic module (500 events,
//     200 services × 10 methods, 50 tools) generated on the fly in a temp dir, against a
//     bare packages.Load with the scanner's mode; target ≤ 1.3×.
//
// # Method
//
// A run is a number of rounds; each round runs every group once. Within a group the
// figure and its floor are interleaved: mount cycles in alternating chunks of 100, call
// micro-benchmarks batch by batch (about 40 ms each, after calibration and warm-up), and
// which side goes first alternates between rounds. Ratios are computed within a round; the
// table shows the median over the rounds with the range. A target is judged on the
// median. Absolute times on a shared machine are noise; ratios measured side by side are
// not, or much less.
//
// The fixtures are shared with the benchmarks of sandbox and internal/gen (package
// internal/benchfix): the anchors' plugin body (plugin-body.js, embedded there), mounted
// with its 'some/event' replaced by bench/tick, an event this command declares and
// catalogues in its own façade tier, written exactly as the binding contract prescribes
// for generated code; the bare goja floor host; and the synthetic module.
//
// # Profiling
//
// -cpuprofile and -memprofile write profiles of the whole run; narrow it with -only, e.g.
//
//	go run ./internal/cmd/benchcmp -only mount -cpuprofile mount.cpu
//	go tool pprof -top -cum -focus kitCycle mount.cpu
//
// -memprofile samples every 4 KiB allocated, which slows allocation-heavy figures: do not
// read the table of a profiled run.
package main
