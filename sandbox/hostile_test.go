package sandbox

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
)

// hostileValues are thrown (or rejected) values whose description would run the mount's
// code if the sandbox called their toString, their getters or their traps. expr is the body
// of a function of ctx returning the value (ctx is undefined where no ctx exists); want is
// a substring of the description the sandbox must give instead.
var hostileValues = []struct {
	name, expr, want string
	needsCtx         bool
}{
	{name: "toString throws a value whose toString throws",
		expr: `return { toString() { throw { toString() { throw { toString() { for (;;) {} } } } } } }`, want: "[object Object]"},
	{name: "Symbol.toPrimitive throws",
		expr: `return { [Symbol.toPrimitive]() { throw { toString() { throw 1 } } }, valueOf() { for (;;) {} } }`, want: "[object Object]"},
	{name: "message getter loops",
		expr: `return Object.defineProperty(new Error('m'), 'message', { get() { for (;;) {} } })`, want: "Error"},
	{name: "stack getter throws a hostile value",
		expr: `return Object.defineProperty(new TypeError('m'), 'stack', { get() { throw { toString() { throw 2 } } } })`, want: "TypeError: m"},
	{name: "name getter on the prototype chain",
		expr: `class E extends Error {}; Object.defineProperty(E.prototype, 'name', { get() { throw { toString() { throw 3 } } } }); return new E('boom')`, want: "Error: boom"},
	{name: "Error.prototype getters",
		expr: `for (const k of ['name', 'message', 'stack', 'toString', 'constructor']) Object.defineProperty(Error.prototype, k, loopGetter()); return new RangeError('r')`, want: "RangeError: r"},
	{name: "Object.prototype getters",
		expr: `const ks = ['name', 'message', 'stack', 'toString', 'constructor', 'value', 'get', 'set', 'writable', 'enumerable', 'configurable']
			for (let i = 0; i < ks.length; i++) Object.defineProperty(Object.prototype, ks[i], loopGetter()); return {}`, want: "[object Object]"},
	{name: "Object.prototype setters of descriptor fields",
		expr: `const ks = ['value', 'writable', 'get', 'set', 'enumerable', 'configurable']
			for (let i = 0; i < ks.length; i++) Object.defineProperty(Object.prototype, ks[i], Object.assign(Object.create(null), { set(v) { for (;;) {} }, configurable: true }))
			return new Error('s')`, want: "[object Error]"},
	{name: "replaced Object.getOwnPropertyDescriptor",
		expr: `Object.getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor = () => { for (;;) {} }; return new Error('d')`, want: "Error: d"},
	{name: "proxy of an Error",
		expr: `const loop = () => { for (;;) {} }; return new Proxy(new Error('p'), { get: loop, getPrototypeOf: loop, getOwnPropertyDescriptor: loop, ownKeys: loop, has: loop })`, want: "[object Proxy]"},
	{name: "revoked proxy",
		expr: `const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy`, want: "[object Proxy]"},
	{name: "proxy on the prototype chain",
		expr: `return Object.create(new Proxy({}, { getPrototypeOf() { for (;;) {} }, getOwnPropertyDescriptor() { for (;;) {} } }))`, want: "[object Object]"},
	{name: "class instance with getters",
		expr: `return new (class Foo { get message() { for (;;) {} } get name() { for (;;) {} } toString() { for (;;) {} } })()`, want: "[object Foo]"},
	{name: "constructor name getter",
		expr: `function F() {}; Object.defineProperty(F, 'name', { get() { for (;;) {} } }); return new F()`, want: "[object Object]"},
	{name: "plain object with a message",
		expr: `return { message: 'plain', toString() { for (;;) {} } }`, want: "[object Object]: plain"},
	{name: "function",
		expr: `return function f() { for (;;) {} }`, want: "[object Function]"},
	{name: "huge message",
		expr: `return new Error('x'.repeat(1 << 20))`, want: "Error: xxxx"},
	{name: "huge string",
		expr: `return 'y'.repeat(1 << 20)`, want: "yyyy"},
	{name: "symbol",
		expr: `return Symbol('sym')`, want: "Symbol(sym)"},
	{name: "Go error prototype with a value getter", needsCtx: true,
		expr: `let p; try { ctx.provide('greeter', {}) } catch (e) { p = Object.getPrototypeOf(e) }
			return Object.create(p, { value: { get() { for (;;) {} } }, message: { get() { for (;;) {} } } })`, want: "Error"},
}

// hostileBound is every bound of TestHostileThrownValues' host: a path that runs one of
// the hostile value's looping members takes at least this long. No passing path waits for
// it, so it is long: the honest work of a path (building and describing a megabyte under
// -race on a loaded two-core machine) must stay well under half of it.
const hostileBound = 8 * time.Second

// maxDescribedError bounds the length of an error message a hostile value may produce
// (the description is capped; the mount id and the entry's name come on top).
const maxDescribedError = 32 << 10

// TestHostileThrownValues throws every hostile value from every path that reports a
// thrown value (evaluation, apply, a tool call, a rejected tool call, a listener, an
// unhandled rejection, a cross-mount call): each ends with a clear error or report, and the
// sandbox still serves afterwards. It runs in a child process, since a broken describe can
// kill the process (a panic while printing a panic value); a wedged sandbox fails it at once.
func TestHostileThrownValues(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	for _, v := range hostileValues {
		t.Run(v.name, func(t *testing.T) {
			// Bounds far above what a path takes, so code of the mount's that runs while the
			// value is described (each hostile member loops until a bound stops it) shows as
			// a path that takes at least one bound; slowPath, half of one, leaves a loaded
			// machine's slow scheduling room to pass.
			h := newHost(t, &Timeouts{VM: hostileBound, Mount: hostileBound, Call: hostileBound})
			// loopGetter is a property descriptor that reads nothing from Object.prototype.
			fn := "function loopGetter() { return Object.assign(Object.create(null), { get() { for (;;) {} }, configurable: true }) }\n" +
				"function hostile(ctx) { " + v.expr + " }\n"
			for _, p := range hostilePaths {
				if p.noCtx && v.needsCtx {
					continue
				}
				t.Run(p.name, func(t *testing.T) {
					h.t = t
					var got string
					start := time.Now()
					within(t, 3*hostileBound, p.name, func() { got = p.run(h, fn) })
					if d := time.Since(start); d > hostileBound/2 {
						t.Errorf("%s took %v: describing the value ran the mount's code", p.name, d)
					}
					want := v.want
					if p.crossed {
						want = "dyn-" // the consumer sees what the membrane made of the value
					}
					if !strings.Contains(got, want) {
						t.Errorf("%s: got %.300q, want it to contain %q", p.name, got, want)
					}
					if len(got) > maxDescribedError {
						t.Errorf("%s: a %d-byte error, want at most %d", p.name, len(got), maxDescribedError)
					}
					var err error
					within(t, 3*hostileBound, "a fresh mount after "+p.name, func() { err = h.serves() })
					if err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}

// A hostilePath throws the value hostile(ctx) from one place and returns the error (or the
// log of the report) it produced.
var hostilePaths = []struct {
	name    string
	noCtx   bool
	crossed bool // the value crosses the membrane first (a copy or a view of it is thrown)
	run     func(h *host, fn string) string
}{
	{name: "evaluation", noCtx: true, run: func(h *host, fn string) string {
		return mountErr(h, fn+`throw hostile(undefined)`)
	}},
	{name: "apply", run: func(h *host, fn string) string {
		return mountErr(h, fn+`return { name: 'h', apply(ctx) { throw hostile(ctx) } }`)
	}},
	{name: "rejected apply", run: func(h *host, fn string) string {
		return mountErr(h, fn+`return { name: 'h', async apply(ctx) { await 0; throw hostile(ctx) } }`)
	}},
	{name: "tool call", run: func(h *host, fn string) string {
		return toolErr(h, fn, `() => { throw hostile(ctx) }`)
	}},
	{name: "rejected tool call", run: func(h *host, fn string) string {
		return toolErr(h, fn, `async () => { await 0; throw hostile(ctx) }`)
	}},
	{name: "listener", run: func(h *host, fn string) string {
		m, f, err := h.mount(fn + `return { name: 'h', apply(ctx) { ctx.on('test/ask', () => { throw hostile(ctx) }) } }`)
		if err != nil {
			return "mount: " + err.Error()
		}
		defer h.unmount(m, f)
		return errText(testAsk.Emit(context.Background(), h.root, askEvent{Question: "q"}))
	}},
	{name: "emit listener", run: func(h *host, fn string) string {
		m, f, err := h.mount(fn + `return { name: 'h', apply(ctx) { ctx.on('bench/tick', () => { throw hostile(ctx) }) } }`)
		if err != nil {
			return "mount: " + err.Error()
		}
		defer h.unmount(m, f)
		before := len(h.log.String())
		benchTick.Emit(h.root, tickEvent{ID: 1, Text: "t"})
		return h.log.String()[before:]
	}},
	{name: "unhandled rejection", run: func(h *host, fn string) string {
		before := len(h.log.String())
		if out := toolErr(h, fn, `() => { Promise.reject(hostile(ctx)); return 1 }`); out != "1" {
			return "the tool: " + out
		}
		return h.log.String()[before:]
	}},
	{name: "cross-mount call", crossed: true, run: func(h *host, fn string) string {
		p, pf, err := h.mount(fn + `return { name: 'p', apply(ctx) { ctx.provide('hostilesvc', { boom() { throw hostile(ctx) } }) } }`)
		if err != nil {
			return "mount: " + err.Error()
		}
		defer h.unmount(p, pf)
		return toolErr(h, "", `() => ctx.hostilesvc.boom()`, "hostilesvc")
	}},
}

// mountErr mounts code that must fail and returns the error.
func mountErr(h *host, code string) string {
	m, f, err := h.mount(code)
	if err == nil {
		h.unmount(m, f)
		return "the mount succeeded"
	}
	return err.Error()
}

// toolErr mounts a tool with the given execute (fn is a prelude; inject the services
// named) and returns its call's error, or its result.
func toolErr(h *host, fn, execute string, inject ...string) string {
	inj := ""
	if len(inject) > 0 {
		inj = `inject: ['` + strings.Join(inject, `', '`) + `'], `
	}
	h.next++
	name := fmt.Sprintf("hostile_%d", h.next)
	m, f, err := h.mount(fn + `return { name: 'h', ` + inj + `apply(ctx) {
		ctx.tools.register({ name: '` + name + `', description: 'd', execute: ` + execute + ` }) } }`)
	if err != nil {
		return "mount: " + err.Error()
	}
	defer h.unmount(m, f)
	out, err := h.call(name, `{}`)
	if err != nil {
		return err.Error()
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// serves reports whether a fresh mount's tool still answers (not through t: it may run on
// another goroutine).
func (h *host) serves() error {
	h.next++
	name := fmt.Sprintf("probe_%d", h.next)
	m, f, err := h.mount(`return { name: 'probe', apply(ctx) {
		ctx.tools.register({ name: '` + name + `', description: 'probe', execute: () => ({ ok: true }) }) } }`)
	if err != nil {
		return fmt.Errorf("the host no longer mounts: %w", err)
	}
	defer h.unmount(m, f)
	if out, err := h.call(name, `{}`); err != nil || out != `{"ok":true}` {
		return fmt.Errorf("the host no longer serves: %s %v", out, err)
	}
	return nil
}

// within runs f on a goroutine and, when it does not return within d, ends the (child)
// process with every goroutine's stack: a wedged sandbox would otherwise block the test, and
// its cleanup, forever.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		panic(fmt.Sprintf("%s: %s did not return within %v: the sandbox is wedged\n%s", t.Name(), what, d, buf))
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
