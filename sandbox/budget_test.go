package sandbox

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/dop251/goja"
)

// ampProvider provides values that are small in its heap and huge once copied: a DAG of
// 40 arrays each holding the previous one twice (2^40 leaves), a sparse array of length
// 2^32−1, and functions that take or return them.
const ampProvider = `return { name: 'amp', apply(ctx) {
	let dag = [0]
	for (let i = 0; i < 40; i++) dag = [dag, dag]
	const sparse = []
	sparse.length = 2 ** 32 - 1
	ctx.provide('amp', {
		dag, sparse,
		wide: Array.from({ length: 1001 }, (_, i) => i),
		echo: (x) => Array.isArray(x) ? x.length : typeof x,
		giveDag: () => dag,
		later: async () => { await 0; return dag },
		call: (f) => f(dag),
		get freshFn() { return () => 1 },
		any: new Proxy({}, { get: (t, k) => () => String(k) }),
	})
} }`

const ampConsumer = `return { name: 'amp-user', inject: ['amp'], apply(ctx) {
	globalThis.ctx = ctx
	globalThis.caught = (f) => { try { f(); return 'copied' } catch (e) { return String(e.message) } }
	let d = [0]
	for (let i = 0; i < 40; i++) d = [d, d]
	globalThis.localDag = d
	globalThis.localSparse = []
	localSparse.length = 2 ** 32 - 1
} }`

// TestMembraneAmplification copies DAGs and sparse arrays through the membrane in every
// direction. Before the budget, the DAG hung the host and the sparse array made Go
// allocate 64 GiB (fatal), so the test runs in a child process.
func TestMembraneAmplification(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newHost(t, &Timeouts{VM: 10 * time.Second, Mount: 10 * time.Second, Call: 10 * time.Second})
	mp, fp := h.mustMount(ampProvider)
	defer h.unmount(mp, fp)
	mc, fc := h.mustMount(ampConsumer)
	defer h.unmount(mc, fc)

	tooMany := "converts to more than 1048576 elements"
	teach := "; shared references count each time they are copied (the bound is Limits.MaxNodes); pass less, or page it"
	for _, tt := range []struct{ src, path, got string }{
		{`caught(() => ctx.amp.dag)`, "ctx.amp.dag[0][0]", ""},
		{`caught(() => ctx.amp.sparse)`, "ctx.amp.sparse:", " (an array of length 4294967295)"},
		{`caught(() => ctx.amp.giveDag())`, "ctx.amp.giveDag()[0]", ""},
		{`caught(() => ctx.amp.echo(localDag))`, "ctx.amp.echo(…) argument 0[0]", ""},
		{`caught(() => ctx.amp.echo(1, localSparse))`, "ctx.amp.echo(…) argument 1:", " (an array of length 4294967295)"},
		{`caught(() => ctx.amp.call((x) => 'called'))`, "ctx.amp.call(…) argument 0(…) argument 0[0]", ""},
		{`ctx.amp.later().then(() => 'copied', (e) => e.message)`, "ctx.amp.later() (resolved)[0]", ""},
	} {
		start := time.Now()
		got := h.eval(mc, tt.src)
		if !strings.HasPrefix(got, `"`+tt.path) || !strings.Contains(got, tooMany+tt.got+teach) {
			t.Errorf("%s = %s\nwant the path %q and %q", tt.src, got, tt.path, tooMany+tt.got+teach)
		}
		if d := time.Since(start); d > 5*time.Second { // about 0.5 s on an idle machine
			t.Errorf("%s took %v", tt.src, d)
		}
	}
	// The membrane still works, both ways.
	if got := h.eval(mc, `[ctx.amp.echo([1, 2, 3]), ctx.amp.wide.length]`); got != `[3,1001]` {
		t.Errorf("after the refusals: %s", got)
	}
	h.serving()
}

// TestMembraneNodeBudget checks the bound exactly with a small MaxNodes: an array of
// MaxNodes elements crosses, one more does not, and a shared array counts each time.
func TestMembraneNodeBudget(t *testing.T) {
	h := newHost(t, nil)
	h.loop.limits.MaxNodes = 1001
	mp, fp := h.mustMount(ampProvider)
	defer h.unmount(mp, fp)
	mc, fc := h.mustMount(ampConsumer)
	defer h.unmount(mc, fc)
	for _, tt := range []struct{ src, want string }{
		{`ctx.amp.echo(Array(1001).fill(0))`, `1001`},
		{`ctx.amp.wide.length`, `1001`},
		{`caught(() => ctx.amp.echo(Array(1002).fill(0)))`, `"ctx.amp.echo(…) argument 0: the value converts to more than 1001 elements (an array of length 1002); shared references count each time they are copied (the bound is Limits.MaxNodes); pass less, or page it"`},
		// 500 + 500 + 2 elements: the shared inner array counts twice.
		{`const a = Array(500).fill(1); caught(() => ctx.amp.echo([a, a]))`, `"ctx.amp.echo(…) argument 0[1]: the value converts to more than 1001 elements; shared references count each time they are copied (the bound is Limits.MaxNodes); pass less, or page it"`},
		// The arguments of one call share one budget.
		{`caught(() => ctx.amp.echo(Array(600).fill(0), Array(600).fill(0)))`, `"ctx.amp.echo(…) argument 1: the value converts to more than 1001 elements; shared references count each time they are copied (the bound is Limits.MaxNodes); pass less, or page it"`},
		{`ctx.amp.echo(Array(600).fill(0)) + ctx.amp.echo(Array(600).fill(0))`, `1200`},
	} {
		if got := h.eval(mc, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// TestViewCacheBounded reads a getter that returns a fresh function, and a proxy that
// answers every key with a fresh function, 100,000 times each: the view's wrapper cache
// stays bounded (it grew by one entry per read before), and a stable method keeps its
// identity.
func TestViewCacheBounded(t *testing.T) {
	h := newHost(t, &Timeouts{VM: 5 * time.Second, Mount: 5 * time.Second, Call: 5 * time.Second})
	mp, fp := h.mustMount(ampProvider)
	defer h.unmount(mp, fp)
	mc, fc := h.mustMount(ampConsumer)
	defer h.unmount(mc, fc)
	n := 100000
	if testing.Short() {
		n = 10000
	}
	src := `{ let ok = 0; for (let i = 0; i < N; i++) ok += ctx.amp.freshFn(); for (let i = 0; i < N; i++) ok += ctx.amp.any['k' + i]() === 'k' + i; [ok, ctx.amp.echo === ctx.amp.echo] }`
	src = strings.ReplaceAll(src, "N", strconv.Itoa(n))
	if got, want := h.eval(mc, src), "["+strconv.Itoa(2*n)+",true]"; got != want {
		t.Fatalf("reads: %s, want %s", got, want)
	}
	views := map[string]int{}
	for _, name := range []string{"amp", "amp.any"} {
		v, err := run(mc.realm, "ctx."+name)
		if err != nil {
			t.Fatal(err)
		}
		h.loop.mu.Lock()
		vw, ok := v.(*goja.Object).Export().(*view)
		if ok {
			views[name] = len(vw.fns)
		}
		h.loop.mu.Unlock()
		if !ok {
			t.Fatalf("ctx.%s is not a membrane view", name)
		}
	}
	// ctx.amp: freshFn and echo. ctx.amp.any is a fresh view per read (its cache starts
	// empty), so check the bound on one view that read many keys instead.
	if views["amp"] > 4 {
		t.Errorf("ctx.amp's view caches %d wrappers after %d reads of a getter, want at most 4", views["amp"], n)
	}
	src = `{ const any = ctx.amp.any; let ok = 0; for (let i = 0; i < N; i++) ok += any['k' + i]() === 'k' + i; globalThis.anyView = any; ok }`
	if got := h.eval(mc, strings.ReplaceAll(src, "N", strconv.Itoa(n))); got != strconv.Itoa(n) {
		t.Fatalf("proxy reads: %s", got)
	}
	v, err := run(mc.realm, "anyView")
	if err != nil {
		t.Fatal(err)
	}
	h.loop.mu.Lock()
	size := len(v.(*goja.Object).Export().(*view).fns)
	h.loop.mu.Unlock()
	if size > maxViewMethods {
		t.Errorf("a view caches %d wrappers after %d distinct keys, want at most %d", size, n, maxViewMethods)
	}
}
