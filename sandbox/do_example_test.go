package sandbox_test

import (
	"context"
	"fmt"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/dop251/goja"
)

// Go code outside a binding reaches a realm's runtime only through Do: the closure runs
// holding the realm's engine, in an entry bounded by CallTimeout, and keeps nothing of the
// runtime past its return.
func ExampleRealm_Do() {
	ctx := context.Background()
	sb := sandbox.New(nil)
	defer sb.Close(ctx)
	m, err := sb.Evaluate(ctx, "dyn-1", `globalThis.greeting = 'hello'; return () => {}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close(ctx)

	var s string
	err = m.Realm().Do(ctx, func(rt *goja.Runtime) error {
		v, err := rt.RunString(`greeting + ', ' + 'cordis'`)
		if err != nil {
			return err // a *sandbox.JSError when the code threw
		}
		s = v.String() // a Go string: safe to keep
		return nil
	})
	fmt.Println(s, err)
	// Output: hello, cordis <nil>
}
