// Package benchfix holds the fixtures the performance measurements share, so that the
// benchmark command and the benchmarks beside the code measure the same thing against
// the same floor. Each fixture lives here once:
//
//   - [PluginBody] (plugin-body.js, embedded): the anchors' canonical model-written plugin,
//     the body of an async function that listens to one event. [OnEvent] points it at a
//     catalogued event and [WithID] makes each mount's source distinct. Mounted by the
//     Benchmark and heap tests of sandbox and by the mount, heap, Go → JS and scale groups
//     of internal/cmd/benchcmp.
//   - [BareHost]: the floor of those figures, the anchors' minimal goja host
//     (anchors-bench/go/host.go). Used by sandbox's *FloorGoja benchmarks and by
//     internal/cmd/benchcmp.
//   - [SynthSize] and [SynthSize.Packages]: the synthetic module the generator and the
//     freshness gate are measured on ([Budget] is the size the performance budget is
//     stated for). Written by internal/gen's BenchmarkPipeline and BenchmarkGenerate and
//     by internal/cmd/benchcmp's pipeline group.
//   - [LiveHeap]: the live heap after two collections, for every heap-per-mount figure.
//   - The sessions figures: mount code of a spinning, a working and an echoing tool
//     ([SpinBody], [WorkBody], [EchoBody]), a bystander's calls beside the same calls on
//     the idle runtime ([Bystander]), and two sessions' calls with GOMAXPROCS=2 beside
//     GOMAXPROCS=1 ([Parallel]), read by what the machine gives two threads
//     ([ParallelGo]). Used by toolset's BenchmarkBystanderWhileTwoSessionsSpin and
//     BenchmarkTwoSessionsParallel and by internal/cmd/benchcmp's sessions group.
//
// The package is for measurements only: nothing in the product imports it.
package benchfix
