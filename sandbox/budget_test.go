package sandbox

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/dop251/goja"
)

// ampProvider provides values that are small in its heap and huge once copied as trees: a
// DAG of 40 arrays each holding the previous one twice (2^40 leaves), a sparse array of
// length 2^32−1, and functions that take or return them.
const ampProvider = `return { name: 'amp', apply(ctx) {
	let dag = [0]
	for (let i = 0; i < 40; i++) dag = [dag, dag]
	const sparse = []
	sparse.length = 2 ** 32 - 1
	ctx.provide('amp', {
		dag, sparse,
		wide: Array.from({ length: 1001 }, (_, i) => i),
		echo: (x) => Array.isArray(x) ? x.length : typeof x,
		same: (x) => x[0] === x[1],
		id: (x) => x,
		giveDag: () => dag,
		later: async () => { await 0; return dag },
		call: (f) => f(dag),
		throwDag: () => { throw dag },
		get freshFn() { return () => 1 },
		any: new Proxy({}, { get: (t, k) => () => String(k) }),
	})
} }`

const ampConsumer = `return { name: 'amp-user', inject: ['amp'], apply(ctx) {
	globalThis.ctx = ctx
	globalThis.caught = (f) => { try { return f() } catch (e) { return String(e.message) } }
	// shared counts the levels of a DAG whose two halves are one array, as copied.
	globalThis.shared = (d) => { let n = 0; for (; Array.isArray(d) && d.length === 2; d = d[0]) { if (d[0] !== d[1]) return 'copied as a tree'; n++ } return n }
	let d = [0]
	for (let i = 0; i < 40; i++) d = [d, d]
	globalThis.localDag = d
	globalThis.localSparse = []
	localSparse.length = 2 ** 32 - 1
} }`

// TestMembraneAmplification copies DAGs and sparse arrays through the membrane in every
// direction. Before the fix, the DAG hung the host (it copied as a tree of 2^40 leaves)
// and the sparse array made Go allocate 64 GiB (fatal), so the test runs in a child
// process. Now a DAG crosses as a DAG, in no time, and stays one; what would be huge once
// copied as a tree — the DAG as a tool's JSON result — is refused by the next conversion's
// budget; the sparse array is refused by its length.
func TestMembraneAmplification(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newHost(t, &Timeouts{VM: 10 * time.Second, Mount: 10 * time.Second, Call: 10 * time.Second})
	mp, fp := h.mustMount(ampProvider)
	defer h.unmount(mp, fp)
	mc, fc := h.mustMount(ampConsumer)
	defer h.unmount(mc, fc)

	tooMany := func(path, got string) string {
		return `"` + path + ": the value converts to more than 1048576 elements" + got +
			`; shared references count each time they are copied (the bound is Limits.MaxNodes); pass less, or page it"`
	}
	for _, tt := range []struct{ src, want string }{
		{`shared(ctx.amp.dag)`, `40`},
		{`shared(ctx.amp.giveDag())`, `40`},
		{`ctx.amp.same(localDag)`, `true`},
		{`shared(ctx.amp.id(localDag))`, `40`},
		{`ctx.amp.call((d) => shared(d))`, `40`},
		{`ctx.amp.later().then(shared)`, `40`},
		{`caught(() => ctx.amp.throwDag()) === undefined ? 'no throw' : (() => { try { ctx.amp.throwDag() } catch (e) { return shared(e) } })()`, `40`},
		{`caught(() => ctx.amp.sparse)`, tooMany("ctx.amp.sparse", " (an array of length 4294967295)")},
		{`caught(() => ctx.amp.echo(1, localSparse))`, tooMany("ctx.amp.echo(…) argument 1", " (an array of length 4294967295)")},
		{`caught(() => ctx.amp.call(() => localSparse))`, tooMany("ctx.amp.call(…) argument 0()", " (an array of length 4294967295)")},
		{`caught(() => ctx.amp.echo(Array(2 ** 20 + 1).fill(0)))`, tooMany("ctx.amp.echo(…) argument 0", " (an array of length 1048577)")},
		{`caught(() => ctx.amp.echo(Array(1100).fill(0).map(() => Array(1000).fill(0))))`, tooMany("ctx.amp.echo(…) argument 0[1047]", "")},
		// The copy is still a DAG of 2^40 leaves: as JSON (this eval's result) it is refused.
		{`ctx.amp.dag`, `error: result[0][0]…: the value converts to more than 1048576 elements; shared references count each time they are copied (the bound is Limits.MaxNodes); pass less, or page it`},
		{`[ctx.amp.echo([1, 2, 3]), ctx.amp.wide.length]`, `[3,1001]`},
	} {
		start := time.Now()
		got := h.eval(mc, tt.src)
		if prefix, suffix, elided := strings.Cut(tt.want, "…"); elided && strings.HasPrefix(got, prefix) && strings.HasSuffix(got, suffix) {
			got = tt.want
		}
		if got != tt.want {
			t.Errorf("%s\n got %.400s\nwant %s", tt.src, got, tt.want)
		}
		if d := time.Since(start); d > 5*time.Second { // well under a second on an idle machine
			t.Errorf("%s took %v", tt.src, d)
		}
	}
	h.serving()
}

// TestMembraneNodeBudget checks the bound exactly with a small MaxNodes: an array of
// MaxNodes elements crosses, one more does not, an array reached twice is copied (and
// counted) once, and the arguments of one call share one budget.
func TestMembraneNodeBudget(t *testing.T) {
	h := newHost(t, nil)
	h.loop.limits.MaxNodes = 1001
	mp, fp := h.mustMount(ampProvider)
	defer h.unmount(mp, fp)
	mc, fc := h.mustMount(ampConsumer)
	defer h.unmount(mc, fc)
	teach := "; shared references count each time they are copied (the bound is Limits.MaxNodes); pass less, or page it"
	for _, tt := range []struct{ src, want string }{
		{`ctx.amp.echo(Array(1001).fill(0))`, `1001`},
		{`ctx.amp.wide.length`, `1001`},
		{`caught(() => ctx.amp.echo(Array(1002).fill(0)))`, `"ctx.amp.echo(…) argument 0: the value converts to more than 1001 elements (an array of length 1002)` + teach + `"`},
		// 2 + 900 elements: the shared array is copied once and stays shared.
		{`const a = Array(900).fill(1); ctx.amp.same([a, a])`, `true`},
		// 2 + 500 + 500: two arrays are two copies.
		{`caught(() => ctx.amp.echo([Array(500).fill(1), Array(500).fill(1)]))`, `"ctx.amp.echo(…) argument 0[1]: the value converts to more than 1001 elements` + teach + `"`},
		{`caught(() => ctx.amp.echo(Array(600).fill(0), Array(600).fill(0)))`, `"ctx.amp.echo(…) argument 1: the value converts to more than 1001 elements` + teach + `"`},
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

// TestConvertAmplification converts values that are small in the JavaScript heap and huge
// once copied into Go, the way generated bindings do (one Budget per argument): 200,000
// references to one 8 MiB string (a copy each, for a string that is not ASCII), a sparse
// array, a DAG, and a JSON document and a Go value of too many elements. In a child
// process: without the budget the strings alone are 1.6 TB.
func TestConvertAmplification(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	l, _ := newTestLoop(t, &Options{Timeouts: &Timeouts{VM: 10 * time.Second, Mount: 10 * time.Second, Call: 10 * time.Second}})
	r := testRealm(t, l, "dyn-1")
	set(r, "strs", func(r *Realm) any {
		return r.Func("t.strs", func(call goja.FunctionCall) goja.Value {
			b := NewBudget(r)
			n := 0
			for i, e := range b.Slice(call.Argument(0), "t.strs: parameter list") {
				n += len(b.String(e, "t.strs: parameter list["+strconv.Itoa(i)+"]"))
			}
			return r.rt.ToValue(n)
		})
	})
	set(r, "slice", func(r *Realm) any {
		return r.Func("t.slice", func(call goja.FunctionCall) goja.Value {
			return r.rt.ToValue(len(ToSlice(r, call.Argument(0), "t.slice: parameter list")))
		})
	})
	set(r, "json", func(r *Realm) any {
		return r.Func("t.json", func(call goja.FunctionCall) goja.Value {
			return r.rt.ToValue(len(ToJSON(r, call.Argument(0), "t.json: parameter data")))
		})
	})
	set(r, "fromJSON", func(r *Realm) any {
		return r.Func("t.fromJSON", func(call goja.FunctionCall) goja.Value {
			n := int(call.Argument(0).ToInteger())
			return FromJSON(r, []byte(`{"items":[`+strings.Repeat("0,", n-1)+`0]}`))
		})
	})
	set(r, "goDAG", func(r *Realm) any {
		return r.Func("t.goDAG", func(goja.FunctionCall) goja.Value {
			x := any([]any{0})
			for range 40 {
				x = []any{x, x}
			}
			return FromAny(r, x)
		})
	})
	if got := runJSON(r, `globalThis.caught = (f) => { try { return f() } catch (e) { return e.message } }; 1`); got != "1" {
		t.Fatal(got)
	}
	teach := "; shared references count each time they are copied (the bound is Limits.%s); pass less, or page it"
	for _, tt := range []struct{ src, want string }{
		{`caught(() => strs(Array(200000).fill('é'.repeat(4 << 20))))`, "t.strs: parameter list[1]: the value converts to more than 8388608 bytes of strings" + fmt.Sprintf(teach, "MaxBytes")},
		{`caught(() => strs(Array(200000).fill('x'.repeat(1 << 20))))`, "t.strs: parameter list[8]: the value converts to more than 8388608 bytes of strings" + fmt.Sprintf(teach, "MaxBytes")},
		{`caught(() => { const a = []; a.length = 2 ** 32 - 1; return slice(a) })`, "t.slice: parameter list: the value converts to more than 1048576 elements (an array of length 4294967295)" + fmt.Sprintf(teach, "MaxNodes")},
		{`caught(() => { let d = [0]; for (let i = 0; i < 40; i++) d = [d, d]; return json(d) })`, "t.json: parameter data[0][0]"},
		{`caught(() => { let d = [0]; for (let i = 0; i < 40; i++) d = [d, d]; return json(d) })`, "the value converts to more than 1048576 elements" + fmt.Sprintf(teach, "MaxNodes")},
		{`caught(() => { const a = []; a.length = 2 ** 32 - 1; return json(a) })`, "t.json: parameter data: the value converts to more than 1048576 elements (an array of length 4294967295)"},
		// The object and the array are values too: the last two items are one too many.
		{`caught(() => fromJSON(1 << 20))`, "the JSON document at items[1048574]: the value converts to more than 1048576 elements"},
		{`caught(() => goDAG())`, "the Go value: the value converts to more than 1048576 elements"},
		// Within the bounds, all of them work.
		{`[strs(Array(8).fill('x'.repeat(1 << 20))), slice(Array(1 << 20).fill(0)), json(Array(1000).fill('ab')), fromJSON(1000).items.length]`, "[8388608,1048576,5001,1000]"},
	} {
		start := time.Now()
		got := strings.Trim(runJSON(r, tt.src), `"`)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s\n got %.300s\nwant %s", tt.src, got, tt.want)
		}
		if d := time.Since(start); d > 5*time.Second { // well under a second on an idle machine
			t.Errorf("%s took %v", tt.src, d)
		}
	}
	// An object's keys are counted before its values are read.
	l.limits.MaxNodes = 1000
	src := `caught(() => { const o = {}; for (let i = 0; i < 1000; i++) o['k' + i] = 0; return json(o) })`
	if got, want := runJSON(r, src), `"t.json: parameter data: the value converts to more than 1000 elements;`; !strings.HasPrefix(got, want) {
		t.Errorf("%s\n got %s\nwant %s…", src, got, want)
	}
}
