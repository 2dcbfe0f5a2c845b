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
			` (the bound is Limits.MaxNodes); pass less, or page it"`
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
		// Lengths are checked before anything is read (so holes make no difference here, and
		// filling a million elements would only slow the test down).
		{`caught(() => ctx.amp.echo(new Array(2 ** 20 + 1)))`, tooMany("ctx.amp.echo(…) argument 0", " (an array of length 1048577)")},
		// The budget spans the value: the second array is refused by its length, uncopied.
		{`caught(() => ctx.amp.echo([Array(1000).fill(0), new Array(2 ** 20 - 1000)]))`, tooMany("ctx.amp.echo(…) argument 0[1]", "")},
		{`[ctx.amp.echo([1, 2, 3]), ctx.amp.wide.length]`, `[3,1001]`},
	} {
		start := time.Now()
		if got := h.eval(mc, tt.src); got != tt.want {
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
	h.sb.limits.MaxNodes = 1001
	mp, fp := h.mustMount(ampProvider)
	defer h.unmount(mp, fp)
	mc, fc := h.mustMount(ampConsumer)
	defer h.unmount(mc, fc)
	// Across mounts a shared array is copied once, so the message does not say that
	// shared references count each time; as JSON they do.
	teach := " (the bound is Limits.MaxNodes); pass less, or page it"
	tree := "; shared references count each time they are copied" + teach
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
		// The DAG crosses whole (82 elements); as JSON (this eval's result) it is a tree of
		// 2^40 leaves, refused by the JSON conversion's budget.
		{`shared(ctx.amp.dag)`, `40`},
		{`ctx.amp.dag`, `error: result[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][1][0][1][0][0][0][0][0][1]: the value converts to more than 1001 elements` + tree},
	} {
		if got := h.eval(mc, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// TestViewCacheBounded reads a getter that returns a fresh function 100,000 times, and a
// proxy that answers every key with a fresh function under 10,000 keys: the view's wrapper
// cache stays bounded (it grew by one entry per read before), and a stable method keeps
// its identity.
func TestViewCacheBounded(t *testing.T) {
	h := newHost(t, &Timeouts{VM: 20 * time.Second, Mount: 20 * time.Second, Call: 20 * time.Second})
	mp, fp := h.mustMount(ampProvider)
	defer h.unmount(mp, fp)
	mc, fc := h.mustMount(ampConsumer)
	defer h.unmount(mc, fc)
	reads, keys := 100000, 10000
	if testing.Short() {
		reads, keys = 10000, 1000
	}
	cached := func(global string) int {
		t.Helper()
		v, err := run(mc.realm, global)
		if err != nil {
			t.Fatal(err)
		}
		mc.realm.engine.lock.Lock()
		defer mc.realm.engine.lock.Unlock()
		vw, ok := v.(*goja.Object).Export().(*view)
		if !ok {
			t.Fatalf("%s is not a membrane view", global)
		}
		return len(vw.fns)
	}
	src := `{ let ok = 0; for (let i = 0; i < N; i++) ok += ctx.amp.freshFn(); [ok, ctx.amp.echo === ctx.amp.echo] }`
	if got, want := h.eval(mc, strings.ReplaceAll(src, "N", strconv.Itoa(reads))), "["+strconv.Itoa(reads)+",true]"; got != want {
		t.Fatalf("getter reads: %s, want %s", got, want)
	}
	if n := cached("ctx.amp"); n != 2 { // freshFn and echo
		t.Errorf("ctx.amp's view caches %d wrappers after %d reads of a getter, want 2", n, reads)
	}
	src = `{ const any = ctx.amp.any; let ok = 0; for (let i = 0; i < N; i++) ok += any['k' + i]() === 'k' + i; globalThis.anyView = any; ok }`
	if got := h.eval(mc, strings.ReplaceAll(src, "N", strconv.Itoa(keys))); got != strconv.Itoa(keys) {
		t.Fatalf("proxy reads: %s", got)
	}
	if n := cached("anyView"); n != maxViewMethods {
		t.Errorf("a view caches %d wrappers after %d distinct keys, want %d", n, keys, maxViewMethods)
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
	l, _ := newTestSandbox(t, &Options{Timeouts: &Timeouts{VM: 10 * time.Second, Mount: 10 * time.Second, Call: 10 * time.Second}})
	r := testRealm(t, l, "dyn-1")
	set(r, "strs", func(r *Realm) any {
		return r.Func("t.strs", func(call goja.FunctionCall) goja.Value {
			b := newBudget(r)
			n := 0
			for i, e := range b.Slice(call.Argument(0), "t.strs: parameter list") {
				n += len(b.String(e, "t.strs: parameter list["+strconv.Itoa(i)+"]"))
			}
			return r.rt.ToValue(n)
		})
	})
	set(r, "slice", func(r *Realm) any {
		return r.Func("t.slice", func(call goja.FunctionCall) goja.Value {
			return r.rt.ToValue(len(toSlice(r, call.Argument(0), "t.slice: parameter list")))
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
			return anyValue(r, x)
		})
	})
	if got := runJSON(r, `globalThis.caught = (f) => { try { return f() } catch (e) { return e.message } }; 1`); got != "1" {
		t.Fatal(got)
	}
	teach := "; shared references count each time they are copied (the bound is Limits.%s); pass less, or page it"
	check := func(cases []struct{ src, want string }) {
		t.Helper()
		// Each refusal names where the conversion passed its bound (list[1] of 200,000
		// strings of 4 MiB, an array's length before its first element): the budget stops
		// the copy there instead of judging it after.
		for _, tt := range cases {
			got := strings.Trim(runJSON(r, tt.src), `"`)
			if !strings.Contains(got, tt.want) {
				t.Errorf("%s\n got %.300s\nwant %s", tt.src, got, tt.want)
			}
		}
	}
	// With the defaults: the cases that were fatal.
	check([]struct{ src, want string }{
		{`caught(() => strs(Array(200000).fill('é'.repeat(4 << 20))))`, "t.strs: parameter list[1]: the value converts to more than 8388608 bytes of strings" + fmt.Sprintf(teach, "MaxBytes")},
		{`caught(() => strs(Array(200000).fill('x'.repeat(1 << 20))))`, "t.strs: parameter list[8]: the value converts to more than 8388608 bytes of strings" + fmt.Sprintf(teach, "MaxBytes")},
		{`caught(() => { const a = []; a.length = 2 ** 32 - 1; return slice(a) })`, "t.slice: parameter list: the value converts to more than 1048576 elements (an array of length 4294967295)" + fmt.Sprintf(teach, "MaxNodes")},
		{`caught(() => { const a = []; a.length = 2 ** 32 - 1; return json(a) })`, "t.json: parameter data: the value converts to more than 1048576 elements (an array of length 4294967295)"},
		{`strs(Array(8).fill('x'.repeat(1 << 20)))`, "8388608"},
	})
	// With a small MaxNodes (the same code, quicker to reach): where each budget runs out.
	l.limits.MaxNodes = 1000
	check([]struct{ src, want string }{
		{`caught(() => { let d = [0]; for (let i = 0; i < 40; i++) d = [d, d]; return json(d) })`, "t.json: parameter data[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][1][0][1][0][0][0][0][0][1]: the value converts to more than 1000 elements" + fmt.Sprintf(teach, "MaxNodes")},
		// An object's keys are counted before its values are read.
		{`caught(() => { const o = {}; for (let i = 0; i < 1000; i++) o['k' + i] = 0; return json(o) })`, "t.json: parameter data: the value converts to more than 1000 elements;"},
		// The object and the array are values too: the last two items are one too many.
		{`caught(() => fromJSON(1000))`, "the JSON document at items[998]: the value converts to more than 1000 elements"},
		{`caught(() => goDAG())`, "the Go value: the value converts to more than 1000 elements"},
		{`[slice(Array(1000).fill(0)), json(Array(999).fill('ab')), fromJSON(998).items.length]`, "[1000,4996,998]"},
	})
}
