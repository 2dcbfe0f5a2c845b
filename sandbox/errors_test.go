package sandbox

import (
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"runtime"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/dop251/goja"
)

// A Go error thrown into JavaScript keeps its identity when it comes back as the mount's
// failure, and JavaScript never sees the Go value.
func TestGoErrorIdentityAcrossTheBoundary(t *testing.T) {
	h := newHost(t, nil)
	first, ff := h.mustMount(`return { name: 'first', apply(ctx) {
		ctx.provide('dupsvc', 1)
		ctx.tools.register({ name: 'duptool', description: 'd', execute: () => 1 })
	} }`)
	defer h.unmount(first, ff)

	for _, tc := range []struct{ name, code string }{
		{"provide", `return { name: 'second', apply(ctx) { ctx.provide('dupsvc', 2) } }`},
		{"register", `return { name: 'second', apply(ctx) { ctx.tools.register({ name: 'duptool', description: 'd', execute: () => 1 }) } }`},
		{"rethrown", `return { name: 'second', apply(ctx) { try { ctx.provide('dupsvc', 2) } catch (e) { throw e } } }`},
		{"rejected", `return { name: 'second', async apply(ctx) { await 0; ctx.provide('dupsvc', 2) } }`},
		{"rejected later", `return { name: 'second', async apply(ctx) {
			let saved; try { ctx.provide('dupsvc', 2) } catch (e) { saved = e }
			await 0; await 0; throw saved } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := h.mount(tc.code)
			if !errors.Is(err, kit.ErrDuplicate) {
				t.Fatalf("err = %v, want errors.Is(err, kit.ErrDuplicate)", err)
			}
			var je *JSError
			if !errors.As(err, &je) || je.Mount == "" {
				t.Fatalf("err = %#v, want a *JSError", err)
			}
		})
	}

	// Only identity counts: an Error JavaScript made with the same text is not the sentinel.
	_, _, err := h.mount(`return { name: 'second', apply(ctx) {
		try { ctx.provide('dupsvc', 2) } catch (e) { throw new Error(e.message) } } }`)
	if err == nil || errors.Is(err, kit.ErrDuplicate) {
		t.Fatalf("copied message: err = %v, want a failure that is not kit.ErrDuplicate", err)
	}

	// JavaScript sees a plain Error: no Go value under any key.
	m, f := h.mustMount(`return { name: 'probe', apply(ctx) {
		try { ctx.provide('dupsvc', 2) } catch (e) {
			globalThis.seen = [e instanceof Error, e.name, e.value === undefined,
				Object.getOwnPropertyNames(e).sort().join(), Object.getOwnPropertySymbols(e).length,
				Object.getPrototypeOf(e) === Error.prototype || Object.getPrototypeOf(Object.getPrototypeOf(e)) === Error.prototype]
		}
	} }`)
	defer h.unmount(m, f)
	if got := h.eval(m, `seen`); got != `[true,"Error",true,"message,name,stack",0,true]` && got != `[true,"Error",true,"message,name",0,true]` {
		t.Errorf("what JavaScript sees: %s", got)
	}
}

// A Go error thrown by a provider crosses the membrane with its identity.
func TestGoErrorIdentityAcrossMounts(t *testing.T) {
	h := newHost(t, nil)
	mp, fp := h.mustMount(`return { name: 'provider', apply(ctx) {
		ctx.provide('taken', 1)
		ctx.provide('dupper', { dup() { ctx.provide('taken', 2) } })
	} }`)
	defer h.unmount(mp, fp)
	_, _, err := h.mount(`return { name: 'consumer', inject: ['dupper'], apply(ctx) { ctx.dupper.dup() } }`)
	if !errors.Is(err, kit.ErrDuplicate) {
		t.Fatalf("err = %v, want errors.Is(err, kit.ErrDuplicate)", err)
	}
}

// Realm.throw and promise rejections remember their Go errors; the record goes with the JS
// value and with the realm.
func TestThrowKeepsGoError(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	sentinel := errors.New("sentinel")
	set(r, "fail", func(r *Realm) any {
		return func(call goja.FunctionCall) goja.Value {
			if call.Argument(0).ToBoolean() {
				r.throw(&conv.ArgError{Method: "fail", Param: "x", Want: "nothing"})
			}
			r.throw(fmt.Errorf("wrapped: %w", sentinel))
			return nil
		}
	})
	if _, err := run(r, `fail()`); !errors.Is(err, sentinel) {
		t.Errorf("thrown: %v", err)
	}
	var ae *conv.ArgError
	if _, err := run(r, `fail(true)`); !errors.As(err, &ae) {
		t.Errorf("thrown TypeError: %v", err)
	}
	if _, err := run(r, `Promise.reject(new Error('wrapped: sentinel'))`); err == nil || errors.Is(err, sentinel) {
		t.Errorf("JS-made error: %v", err)
	}
	if _, err := run(r, `(async () => { try { fail() } catch (e) { await 0; throw e } })()`); !errors.Is(err, sentinel) {
		t.Errorf("rejected: %v", err)
	}
	// Errors JavaScript dropped are forgotten.
	for range 100 {
		_, _ = run(r, `try { fail() } catch (e) {}`)
	}
	n := 0
	for deadline := time.Now().Add(2 * time.Second); ; {
		runtime.GC()
		r.errMu.Lock()
		n = len(r.goErrs)
		r.errMu.Unlock()
		if n <= 50 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n > 50 {
		t.Errorf("%d Go errors still remembered after their JS Errors were dropped", n)
	}
	r.engine.lock.Lock()
	r.close()
	r.engine.lock.Unlock()
	if r.goErrs != nil {
		t.Error("close kept the map")
	}
}
