package sandbox

import (
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/dop251/goja"
)

// The sandbox's natives read their arguments with package conv, as generated bindings do
// through sandbox/bind; these name the realm's string limit once.

func toString(r *Realm, v goja.Value, method, param string) string {
	return conv.String(thrower{r}, r.engine.limits.MaxBytes, v, method, param)
}

func argString(r *Realm, call goja.FunctionCall, i int, method, param string) string {
	return toString(r, call.Argument(i), method, param)
}

func argCallback(r *Realm, call goja.FunctionCall, i int, method, param string) goja.Callable {
	return conv.Callback(thrower{r}, call.Argument(i), method, param)
}

// toSlice returns the elements of array v: newBudget(r).Slice, for an array converted on
// its own. An array longer than Limits.MaxNodes throws before anything is read.
func toSlice(r *Realm, v goja.Value, path string) []goja.Value {
	return newBudget(r).Slice(v, path)
}

// Limits returns the limits of the realm's sandbox ([Sandbox.Limits]).
func (r *Realm) Limits() Limits { return r.engine.limits }
