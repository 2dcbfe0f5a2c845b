package sandbox

import (
	"context"
	"testing"

	"github.com/dop251/goja"
)

// RunOptions.Globals installs a run's extra globals before the body runs, read-only and
// frozen, in that run's realm only.
func TestRunWithGlobals(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	const body = `const r = [typeof extra, typeof extra === 'object' && extra.f()];
if (typeof extra === 'object') {
	extra = 1; extra.x = 2; extra.f = null;
	r.push(typeof extra, extra.x === undefined, extra.f(), delete globalThis.extra, Object.isFrozen(extra));
}
return { name: JSON.stringify(r), apply() {} }`
	p, err := l.Compile("dyn-1", body)
	if err != nil {
		t.Fatal(err)
	}
	globals := map[string]func(r *Realm) goja.Value{"extra": func(r *Realm) goja.Value {
		o := r.rt.NewObject()
		_ = o.Set("f", func(goja.FunctionCall) goja.Value { return r.rt.ToValue("native") })
		return o
	}}
	for _, tt := range []struct {
		opts *RunOptions
		want string
	}{
		{&RunOptions{Globals: globals}, `["object","native","object",true,"native",false,true]`},
		{nil, `["undefined",false]`}, // a realm of its own: the last run's globals are not here
	} {
		if got := runName(t, l, p, tt.opts); got != tt.want {
			t.Errorf("with %+v the body saw %s, want %s", tt.opts, got, tt.want)
		}
	}
}

// An extra global is built on the body's first read of its name, once, and frozen with
// the intrinsic Object.freeze even when the body replaced Object and Object.freeze before
// that read; assignments (sloppy and strict, by name and through globalThis) and
// redefinition leave it in place, and a name the body declares shadows it.
func TestRunWithGlobalsLazy(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	builds := 0
	opts := &RunOptions{Globals: map[string]func(r *Realm) goja.Value{"extra": func(r *Realm) goja.Value {
		builds++
		o := r.rt.NewObject()
		_ = o.Set("n", builds)
		return o
	}}}
	for _, tt := range []struct {
		name, body, want string
		builds           int
	}{
		{"unnamed", `return { name: 'none', apply() {} }`, `none`, 0},
		{"read twice", `return { name: JSON.stringify([extra === extra, extra.n]), apply() {} }`, `[true,1]`, 1},
		{"forged freeze", `const isFrozen = Object.isFrozen;
Object.freeze = (o) => o;
globalThis.Object = { freeze: (o) => o };
extra.n = 2;
return { name: JSON.stringify([isFrozen(extra), extra.n]), apply() {} }`, `[true,1]`, 1},
		{"assignments", `extra = 1;
globalThis.extra = 2;
const strict = (() => { 'use strict'; try { extra = 3; return 'assigned' } catch (e) { return e.name } })();
let redefined;
try { Object.defineProperty(globalThis, 'extra', { value: 4 }); redefined = 'redefined' } catch (e) { redefined = e.name }
return { name: JSON.stringify([typeof extra, extra.n, strict, redefined, delete globalThis.extra]), apply() {} }`, `["object",1,"TypeError","TypeError",false]`, 1},
		{"shadowed", `const extra = 'local'; return { name: extra, apply() {} }`, `local`, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			builds = 0
			p, err := l.Compile("dyn-1", tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if got := runName(t, l, p, opts); got != tt.want {
				t.Errorf("the body saw %s, want %s", got, tt.want)
			}
			if builds != tt.builds {
				t.Errorf("the global was built %d times, want %d", builds, tt.builds)
			}
		})
	}
}

// runName runs p with opts and returns the name of the plugin its body returned.
func runName(t *testing.T, l *Sandbox, p *Program, opts *RunOptions) string {
	t.Helper()
	ctx := context.Background()
	m, err := l.RunWith(ctx, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	name := m.Name()
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return name
}
