package sandbox

import (
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/childtest"
)

// TestBuiltinsLazy: the engine's globals reach the realm's global object on their first
// read, so a mount that never names eval or JSON does not build their guards (nor takes
// Reflect's getOwnPropertyDescriptor before it hands Reflect out or describes a value); each
// behaves as the engine's global it stands for once read: the same value every time, an
// own property of the global object (writable, configurable, not enumerable), deleted by
// delete; undefined, NaN and Infinity cannot be assigned; this and globalThis are the
// realm's global object.
func TestBuiltinsLazy(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return (ctx) => {}`)
	defer h.unmount(m, f)
	if c := m.realm.compilers; c.eval != nil || c.json != nil {
		t.Errorf("a mount that names neither eval nor JSON built their guards (eval %v, JSON %v)", c.eval != nil, c.json != nil)
	}
	if g := &m.realm.globals; g.handed != [2]uint64{} {
		t.Errorf("a mount that names no global handed some to the global object: %b", g.handed)
	}
	if m.realm.ownDesc != nil {
		t.Error("a mount that describes nothing took Reflect.getOwnPropertyDescriptor")
	}
	if got := h.eval(m, `typeof Reflect.getOwnPropertyDescriptor`); got != `"function"` || m.realm.ownDesc == nil {
		t.Errorf("Reflect handed out (%s) before describe took its getOwnPropertyDescriptor", got)
	}
	for _, tt := range []struct{ src, want string }{
		{`JSON === JSON && JSON === globalThis.JSON && eval === globalThis.eval && Math === Math`, `true`},
		{`const d = Object.getOwnPropertyDescriptor(globalThis, 'JSON'); [d.value === JSON, d.writable, d.configurable, d.enumerable]`, `[true,true,true,false]`},
		{`JSON; Object.keys(globalThis).includes('JSON') || Object.getOwnPropertyNames(globalThis).includes('JSON')`, `true`},
		{`'Array' in globalThis && 'parseInt' in globalThis && typeof Reflect`, `"object"`},
		{`undefined = 1; NaN = 1; Infinity = 1; [typeof undefined, Number.isNaN(NaN), Infinity > 1e308]`, `["undefined",true,true]`},
		{`(function () { 'use strict'; try { undefined = 1; return 'assigned' } catch (e) { return e.name } })()`, `"TypeError"`},
		{`(function () { return this })() === globalThis && globalThis.globalThis === globalThis && (0, eval)('this') === globalThis`, `true`},
		{`Function === (function () {}).constructor && Function('return this')() === globalThis`, `true`},
		{`String = 1; String`, `1`},
		{`delete globalThis.Math; [typeof Math, 'Math' in globalThis]`, `["undefined",false]`},
		{`typeof Object.getPrototypeOf(globalThis).JSON`, `"undefined"`}, // the global object's own now
		{`toString.call([])`, `"[object Array]"`},
		{`(0, eval)('var declared = 5'); [declared, globalThis.declared]`, `[5,5]`},
	} {
		if got := h.eval(m, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
	if c := m.realm.compilers; c.eval == nil || c.json == nil {
		t.Errorf("eval and JSON were read but not guarded (eval %v, JSON %v)", c.eval != nil, c.json != nil)
	}
}

// TestBuiltinsFrozenGlobal: a global object made non-extensible before an engine global
// was read still serves that global (it cannot become an own property any more).
func TestBuiltinsFrozenGlobal(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`Object.preventExtensions(globalThis); return (ctx) => {}`)
	defer h.unmount(m, f)
	if got := h.eval(m, `[Math.max(1, 2), Math === Math, JSON.parse('[1]')[0], Object.isExtensible(globalThis)]`); got != `[2,true,1,false]` {
		t.Errorf("got %s", got)
	}
}

// TestBuiltinsGuardedEveryWay: however mount code reaches eval and JSON.parse — by name,
// through the global object's prototype before or after the name is read, after deleting
// the global — it reaches the guarded ones, which refuse deep text with a SyntaxError
// instead of overflowing goja's parser (a fatal error: the test runs in a child process).
// With the global object's prototype gone, the realm's SyntaxError is gone too, unless
// read before: then a TypeError carries the message, as when mount code replaces it.
func TestBuiltinsGuardedEveryWay(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newHost(t, &Timeouts{Call: 5 * time.Second}) // building 4 MB of text takes a while under -race
	deep := `('['.repeat(2e6) + ']'.repeat(2e6))`
	code := `'(' + '('.repeat(2e6) + '1' + ')'.repeat(2e6) + ')'`
	for _, tc := range []struct{ name, src, want string }{
		{"JSON through the prototype, unread", `Object.getPrototypeOf(globalThis).JSON.parse(` + deep + `)`, "SyntaxError"},
		{"JSON through the prototype, read", `const j = JSON; (Object.getPrototypeOf(globalThis).JSON || j).parse(` + deep + `)`, "SyntaxError"},
		{"JSON after delete", `const j = JSON; delete globalThis.JSON; (Object.getPrototypeOf(globalThis).JSON || j).parse(` + deep + `)`, "SyntaxError"},
		{"JSON via Reflect", `Reflect.get(globalThis, 'JSON').parse(` + deep + `)`, "SyntaxError"},
		{"JSON via the prototype's descriptor", `Object.getOwnPropertyDescriptor(Object.getPrototypeOf(globalThis), 'JSON').value.parse(` + deep + `)`, "SyntaxError"},
		{"eval through the prototype, unread", `Object.getPrototypeOf(globalThis).eval(` + code + `)`, "SyntaxError"},
		{"eval by its name in a string", `globalThis['ev' + 'al'](` + code + `)`, "SyntaxError"},
		{"eval after the prototype is gone", `const e = eval; Object.setPrototypeOf(globalThis, null); e(` + code + `)`, "TypeError"},
		{"eval after the prototype is gone, SyntaxError read", `const e = eval; SyntaxError; Object.setPrototypeOf(globalThis, null); e(` + code + `)`, "SyntaxError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, f := h.mustMount(`return (ctx) => {}`)
			defer h.unmount(m, f)
			got := h.eval(m, `(() => { try { `+tc.src+`; return 'no error' } catch (e) { return e.name + ': ' + e.message } })()`)
			if !strings.HasPrefix(got, `"`+tc.want+`: `) || !strings.Contains(got, "Limits.MaxNesting") {
				t.Errorf("%s: got %s, want a %s naming Limits.MaxNesting", tc.src, got, tc.want)
			}
		})
	}
	h.serving()
}
