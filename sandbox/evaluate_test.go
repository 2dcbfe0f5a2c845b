package sandbox

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSyntaxErrors(t *testing.T) {
	h := newHost(t, nil)
	tests := []struct {
		name, code string
		want       string // the whole message
	}{
		{
			"unexpected token",
			"return { apply(ctx) {\n  ctx.on('tools/change', () => {)\n} }",
			"dyn-1: mount code failed to parse at line 2, column 33: Unexpected token )\n" +
				"  2 |   ctx.on('tools/change', () => {)\n" +
				"    |                                 ^\n" +
				"Brackets do not balance: the `)` at line 2, column 33 does not match the `{` at line 2, column 32.",
		},
		{
			"typescript cast",
			"return { name: 'x' as const, apply(ctx) {} }",
			"dyn-2: mount code failed to parse at line 1, column 20: Unexpected identifier\n" +
				"  1 | return { name: 'x' as const, apply(ctx) {} }\n" +
				"    |                    ^\n" +
				"The sandbox runs plain JavaScript, not TypeScript. Remove type annotations and casts:\n" +
				"  ✗ { type: 'text' as const, text: x }   ✓ { type: 'text', text: x }\n" +
				"  ✗ (name: string): string => …          ✓ (name) => …",
		},
		{
			"typescript annotation",
			"const greet = (name: string) => 'hi ' + name\nreturn (ctx) => {}",
			"The sandbox runs plain JavaScript, not TypeScript.",
		},
		{
			"closing with });",
			"return {\n  name: 'x',\n  apply(ctx) {}\n});",
			"Brackets do not balance: the `)` at line 4, column 2 has no matching `(`. Ending the returned plugin object with `});` closes a call that was never opened; a plain `return { … }` ends with `}` (or `};`), never `)`.",
		},
		{
			"closes the wrapper early",
			"}); globalThis.escaped = 1; (async function () {",
			"dyn-5: mount code failed to parse at line 1, column 1: this closes the async function body early\n" +
				"  1 | }); globalThis.escaped = 1; (async function () {\n" +
				"    | ^\n" +
				"The code is the BODY of an async function: write statements and `return` your plugin. Do not wrap it in `(async () => { … })()` and do not close braces you did not open.",
		},
		{
			"unterminated",
			"return {\n  apply(ctx) {",
			"dyn-6: mount code failed to parse at line 2, column 15: Unexpected end of input\n" +
				"  2 |   apply(ctx) {\n" +
				"    |               ^\n" +
				"Brackets do not balance: the `{` at line 2, column 14 is never closed.",
		},
		{
			"import",
			"import fs from 'fs'\nreturn (ctx) => {}",
			"Mount code cannot use import/export: it is the body of an async function.",
		},
		{
			"early error from the compiler",
			"let a = 1\nlet a = 2\nreturn (ctx) => {}",
			"dyn-8: mount code failed to parse at line 2, column 5: Identifier 'a' has already been declared\n" +
				"  2 | let a = 2\n" +
				"    |     ^\n" +
				"The code is the BODY of an async function: statements, then `return` your plugin:\n" + pluginForms,
		},
		{
			"unicode before the error",
			"const s = 'héllo wörld' +\nreturn () => {}",
			"dyn-9: mount code failed to parse at line 2, column 1: Unexpected token return",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := h.mount(tt.code)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SyntaxError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got:\n%s\nwant (contained):\n%s", err, tt.want)
			}
		})
	}
	h.serving()
}

func TestNotAPlugin(t *testing.T) {
	h := newHost(t, nil)
	undefinedMsg := "mount code returned undefined — did you forget `return`? The code is the body of an async function and must return a plugin, in one of two forms:\n" +
		"  ✓ return (ctx) => { … }\n" +
		"  ✓ return { name: '…', inject: ['…'], apply(ctx) { … } }"
	generic := "mount code must return a plugin — a function (ctx) => { … }, or an object with an apply(ctx) method — but it returned "
	tests := []struct {
		code string
		want string // after "dyn-N: "
	}{
		{`const plugin = { apply(ctx) {} }`, undefinedMsg},
		{`(async () => { return (ctx) => {} })()`, undefinedMsg},
		{`return 42`, generic + "number:\n" + pluginForms},
		{`return null`, generic + "null:\n" + pluginForms},
		{`return "plugin"`, generic + "string:\n" + pluginForms},
		{`return { name: 'x' }`, generic + "an object whose apply is undefined:\n" + pluginForms},
		{`return { name: 'x', apply: 'yes' }`, generic + "an object whose apply is string:\n" + pluginForms},
		{`return { name: 'x', inject: 'timer', apply() {} }`, `plugin "x": inject must be an array of service names, such as inject: ['timer'], but it is string`},
		{`return { name: 'x', inject: ['timer', 3], apply() {} }`, `plugin "x": inject[1] must be a non-empty service name (a string), but it is number`},
		{`throw new Error('boom in sandbox')`, "Error: boom in sandbox"},
		{`throw 'plain-string-throw'`, "plain-string-throw"},
		{`throw null`, "null"},
		{`JSON.parse('{')`, "SyntaxError: Unexpected end of JSON input (EOF)"}, // a runtime SyntaxError is not a parse error
		{`await Promise.reject(new TypeError('async fail'))`, "TypeError: async fail"},
		{`await 0; notDefined()`, "ReferenceError: notDefined is not defined"},
	}
	for i, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, _, err := h.mount(tt.code)
			if err == nil {
				t.Fatal("mounted")
			}
			want := "dyn-" + strconv.Itoa(i+1) + ": " + tt.want
			if err.Error() != want {
				t.Errorf("got:\n%s\nwant:\n%s", err, want)
			}
		})
	}
	h.serving()
}

func TestPluginNames(t *testing.T) {
	h := newHost(t, nil)
	tests := []struct{ code, name string }{
		{`return (ctx) => {}`, "<anonymous>"},
		{`return function watcher(ctx) {}`, "watcher"},
		{`const p = (ctx) => {}; return p`, "p"},
		{`return { name: 'change-logger', apply(ctx) {} }`, "change-logger"},
		{`return { name: '', apply(ctx) {} }`, "<anonymous>"},
		{`return { name: 42, apply(ctx) {} }`, "<anonymous>"},
		{`return { name: 'async', async apply(ctx) { await 0 } }`, "async"},
	}
	for _, tt := range tests {
		m, f := h.mustMount(tt.code)
		if m.Name() != tt.name || f.Name() != tt.name {
			t.Errorf("%s: name %q (fiber %q), want %q", tt.code, m.Name(), f.Name(), tt.name)
		}
		h.unmount(m, f)
	}
}

func TestTraps(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return (ctx) => {}`)
	defer h.unmount(m, f)
	for _, tr := range traps {
		t.Run(tr.name, func(t *testing.T) {
			want := `"TypeError: ` + tr.name + ` is not available in the mount sandbox — ` + strings.ReplaceAll(tr.hint, `"`, `\"`) + `"`
			if got := h.eval(m, `try { `+tr.name+`('x', 1) ; "no throw" } catch (e) { e.name + ": " + e.message }`); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if got := h.eval(m, `typeof `+tr.name); got != `"function"` {
				t.Errorf("typeof: %s", got)
			}
		})
	}
	for _, name := range []string{"process", "Buffer", "global", "queueMicrotask"} {
		if got := h.eval(m, `typeof `+name); got != `"undefined"` {
			t.Errorf("typeof %s = %s", name, got)
		}
	}
	// During evaluation too, and with the teaching message surfacing as the mount error.
	_, _, err := h.mount(`const fs = require('fs'); return () => {}`)
	if err == nil || !strings.Contains(err.Error(), "require is not available in the mount sandbox — Node modules do not exist here.") {
		t.Errorf("got %v", err)
	}
	_, _, err = h.mount(`setTimeout(() => {}, 10); return () => {}`)
	if err == nil || !strings.Contains(err.Error(), "Declare inject: ['timer'] and call ctx.setTimeout") {
		t.Errorf("got %v", err)
	}
}

func TestGlobals(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`
		console.log('loaded', 42, { a: [1] }, null, undefined)
		console.warn('careful')
		console.error(new TypeError('shown'))
		console.debug('dbg')
		return (ctx) => {}`)
	defer h.unmount(m, f)
	log := h.log.String()
	for _, want := range []string{
		`level=INFO msg="loaded 42 {\"a\":[1]} null undefined" mount=dyn-1 console=log`,
		`level=WARN msg=careful mount=dyn-1 console=warn`,
		`level=ERROR msg="TypeError: shown" mount=dyn-1 console=error`,
		`level=DEBUG msg=dbg mount=dyn-1 console=debug`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s\n%s", want, log)
		}
	}
	tests := []struct{ src, want string }{
		{`btoa('hi')`, `"aGk="`},
		{`atob(btoa('hi'))`, `"hi"`},
		{`btoa('héllo ✓')`, `"aMOpbGxvIOKckw=="`},
		{`atob(btoa('héllo ✓ 𝄞'))`, `"héllo ✓ 𝄞"`},
		{`atob('aGk')`, `"hi"`},
		{`try { atob('%%%') } catch (e) { e.message }`, `"atob: the argument is not valid base64: illegal base64 data at input byte 0"`},
		{`try { btoa(1) } catch (e) { e.message }`, `"btoa: parameter data: expected a string, got number"`},
		{`Array.from(new TextEncoder().encode('é✓'))`, `[195,169,226,156,147]`},
		{`new TextEncoder().encoding`, `"utf-8"`},
		{`new TextEncoder().encode() instanceof Uint8Array`, `true`},
		{`new TextDecoder().decode(new TextEncoder().encode('héllo'))`, `"héllo"`},
		{`new TextDecoder().decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x61]))`, `"a"`},
		{`new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x61])).length`, `2`},
		{`new TextDecoder().decode(new Uint8Array([0x61, 0xff]))`, "\"a\ufffd\""},
		{`try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])) } catch (e) { e.name }`, `"TypeError"`},
		{`try { new TextDecoder('latin1') } catch (e) { e.name + ': ' + e.message }`, `"RangeError: TextDecoder: encoding \"latin1\" is not supported; only utf-8 is"`},
		{`new TextDecoder().decode(new Uint16Array([0x6968]).buffer)`, `"hi"`},
		{`new TextDecoder().decode()`, `""`},
		{`TextEncoder = 1; TextEncoder`, `1`},
	}
	for _, tt := range tests {
		if got := h.eval(m, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// The sandbox globals are built on first access, once per realm, and behave as globals:
// readable in strict code, shadowed by an assignment, listed by for-in.
func TestGlobalsLazy(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return (ctx) => {}`)
	defer h.unmount(m, f)
	if n := len(m.realm.globals.vals); n != 0 {
		t.Errorf("a mount that touches no sandbox global built %d of them", n)
	}
	tests := []struct{ src, want string }{
		{`require === require && console === globalThis.console && btoa === globalThis.btoa`, `true`},
		{`(function () { 'use strict'; return [typeof require, typeof console.log, typeof TextEncoder, typeof process] })()`, `["function","function","function","undefined"]`},
		{`(function () { 'use strict'; try { fetch('x') } catch (e) { return e.name } })()`, `"TypeError"`},
		{`(function () { 'use strict'; try { process } catch (e) { return e.name + ': ' + e.message } })()`, `"ReferenceError: process is not defined"`},
		{`'require' in globalThis && 'TextDecoder' in globalThis && !('Buffer' in globalThis)`, `true`},
		{`const ks = []; for (const k in globalThis) ks.push(k); ['console', 'btoa', 'atob', 'require', 'fetch'].every(k => ks.includes(k)) && !ks.includes('TextEncoder')`, `true`},
		{`globalThis.console = { log: () => 'mine' }; console.log()`, `"mine"`},
		{`(function () { 'use strict'; globalThis.btoa = () => 'mine'; return btoa() })()`, `"mine"`},
		{`atob = 1; atob`, `1`},
		{`toString.call([])`, `"[object Array]"`},
	}
	for _, tt := range tests {
		if got := h.eval(m, tt.src); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestRealmsAreIsolated(t *testing.T) {
	h := newHost(t, nil)
	a, fa := h.mustMount(`
		globalThis.leak = 'a'
		Object.prototype.polluted = true
		Array.prototype.push = () => 'hijacked'
		JSON.stringify = () => 'hijacked'
		return (ctx) => {}`)
	defer h.unmount(a, fa)
	b, fb := h.mustMount(`return (ctx) => {}`)
	defer h.unmount(b, fb)
	tests := []struct{ src, want string }{
		{`typeof leak`, `"undefined"`},
		{`({}).polluted`, `undefined`},
		{`const xs = []; xs.push(1); xs`, `[1]`},
		{`JSON.stringify({a: 1})`, `"{\"a\":1}"`},
	}
	for _, tt := range tests {
		if got := h.eval(b, tt.src); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.src, got, tt.want)
		}
	}
	// The sandbox's own conversions do not use the realm's (replaceable) globals.
	if got := h.eval(a, `({ list: [1, 2] })`); got != `{"list":[1,2]}` {
		t.Errorf("conversion in the polluted realm: %s", got)
	}
}

func TestEvaluateContextCancel(t *testing.T) {
	h := newHost(t, &Timeouts{VM: 10 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := h.sb.Evaluate(ctx, "dyn-1", `for (;;) {}`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	h.serving()
}
