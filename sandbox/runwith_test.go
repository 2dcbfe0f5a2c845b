package sandbox

import (
	"context"
	"testing"

	"github.com/dop251/goja"
)

// RunOptions.Globals installs a run's extra globals before the body runs, read-only and
// frozen, in that run's realm only.
func TestRunWithGlobals(t *testing.T) {
	l, _ := newTestLoop(t, nil)
	ctx := context.Background()
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
	globals := func(r *Realm) map[string]goja.Value {
		o := r.Runtime().NewObject()
		_ = o.Set("f", func(goja.FunctionCall) goja.Value { return r.Runtime().ToValue("native") })
		return map[string]goja.Value{"extra": o}
	}
	for _, tt := range []struct {
		opts *RunOptions
		want string
	}{
		{&RunOptions{Globals: globals}, `["object","native","object",true,"native",false,true]`},
		{nil, `["undefined",false]`}, // a realm of its own: the last run's globals are not here
	} {
		m, err := l.RunWith(ctx, p, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() != tt.want {
			t.Errorf("with %+v the body saw %s, want %s", tt.opts, m.Name(), tt.want)
		}
		if err := m.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
