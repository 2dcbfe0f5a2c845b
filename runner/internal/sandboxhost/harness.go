package sandboxhost

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"sync"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/sandbox/bind"
	"github.com/dop251/goja"
)

// handlerTable is one run's harness.handle registrations (docs/dynamic-plugins.md, "The host
// half"). It belongs to the
// run, not to a fiber: handlers stay callable while the fiber is parked and go only when
// the run stops. JavaScript adds and removes entries with the realm's lock held; Go reads
// them (Handlers, Invoke) under mu without entering JavaScript. It holds at most max
// entries at once: a method counts once however often it is registered again after its
// disposer, and the map never grows past max, whatever a half registers and disposes.
type handlerTable struct {
	mu  sync.Mutex
	m   map[string]*handlerEntry
	max int // Host.SetMaxHandlers (the runner's Options.MaxHandlersPerRun)
}

// newHandlerTable returns an empty table for one run, with the host's bound.
func (h *Host) newHandlerTable() *handlerTable {
	h.mu.Lock()
	defer h.mu.Unlock()
	return &handlerTable{max: h.maxHandlers}
}

// A handlerEntry is one registration; a disposer compares entries, not functions, so a
// stale disposer cannot remove a later registration of the same function.
type handlerEntry struct{ fn goja.Callable }

// harnessGlobals returns the host half's globals for the sandbox to install (read-only,
// frozen on first read) before the body runs: `harness`, built by [handlerTable.harness]
// only if the half names it.
func (t *handlerTable) harnessGlobals() map[string]func(*sandbox.Realm) goja.Value {
	return map[string]func(*sandbox.Realm) goja.Value{"harness": t.harness}
}

// harness builds the host half's `harness`: natives bound to t and to this run's tool
// marker, so the half can neither redirect them nor reach the table except through them.
// Lock held.
func (t *handlerTable) harness(r *sandbox.Realm) goja.Value {
	marker := goja.NewSymbol("harness.defineTool")
	return bind.PlainObject(r,
		bind.Prop("handle", r.Func("harness.handle", t.handle(r))),
		bind.Prop("defineTool", r.Func("harness.defineTool", defineTool(r, marker))),
		bind.Prop("registerTool", r.Func("harness.registerTool", registerTool(r, marker))),
	)
}

// handle is harness.handle(method, fn): it refuses a blank method, a non-function, a
// method this half already registered (the original replaced it silently) and a new
// method once the table holds t.max, and returns a disposer that removes only its own
// entry.
func (t *handlerTable) handle(r *sandbox.Realm) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		mv := call.Argument(0)
		if !goja.IsString(mv) || mv.String() == "" {
			bind.ThrowTypeError(r, "harness.handle(method, fn): method must be a non-empty string, such as harness.handle('refresh', async (args) => ({ ok: true }))")
		}
		method := mv.String()
		fn, ok := goja.AssertFunction(call.Argument(1))
		if !ok {
			bind.ThrowTypeError(r, "harness.handle("+jsQuote(method)+", fn): fn must be a function that takes the JSON arguments and returns JSON data (or null)")
		}
		e := &handlerEntry{fn: fn}
		t.mu.Lock()
		_, dup := t.m[method]
		full := !dup && len(t.m) >= t.max
		if !dup && !full {
			if t.m == nil {
				t.m = make(map[string]*handlerEntry, 4)
			}
			t.m[method] = e
		}
		t.mu.Unlock()
		if dup {
			bind.ThrowTypeError(r, "harness.handle("+jsQuote(method)+"): this host half already registered that method; register each method once (dispatch on the arguments inside one handler), or call the disposer the first harness.handle returned before registering it again")
		}
		if full {
			bind.ThrowTypeError(r, "harness.handle("+jsQuote(method)+"): this run holds "+strconv.Itoa(t.max)+" handlers, the most one run may hold (runner.Options.MaxHandlersPerRun); register fewer methods and dispatch on the arguments inside one handler, or call the disposer of a handler you no longer need before registering another")
		}
		return r.Func("harness.handle disposer", func(goja.FunctionCall) goja.Value {
			t.mu.Lock()
			if t.m[method] == e {
				delete(t.m, method)
			}
			t.mu.Unlock()
			return goja.Undefined()
		})
	}
}

// lookup returns the handler for method, or nil.
func (t *handlerTable) lookup(method string) goja.Callable {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.m[method]; e != nil {
		return e.fn
	}
	return nil
}

// names returns the registered methods, sorted (nil for none).
func (t *handlerTable) names() []string {
	t.mu.Lock()
	var names []string
	for k := range t.m {
		names = append(names, k)
	}
	t.mu.Unlock()
	sort.Strings(names)
	return names
}

// clear drops every handler (the run stopped).
func (t *handlerTable) clear() {
	t.mu.Lock()
	t.m = nil
	t.mu.Unlock()
}

// jsQuote quotes s as JSON.stringify does for the messages (no HTML escaping).
func jsQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}
