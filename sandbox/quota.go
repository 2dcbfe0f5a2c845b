package sandbox

import (
	"sync/atomic"
)

// Every entry into JavaScript is bounded, but nothing bounded what one mount accumulates: a
// timer that schedules two more reaches hundreds of thousands of timers (each a goroutine
// once it fires and waits for the lock) in seconds, and a listener that registers itself
// again on every event doubles the work of every event. Quotas cap what one activation of a
// mount holds at once (Limits.MaxTimers, MaxListeners, MaxTools, MaxServices).

// A quotaKind is one per-mount budget.
type quotaKind int

const (
	quotaTimers quotaKind = iota
	quotaListeners
	quotaTools
	quotaServices
	numQuotas
)

// quotaInfo names each budget in the error a mount sees, and says how to stay within it.
var quotaInfo = [numQuotas]struct{ what, field, fix string }{
	quotaTimers: {"timers at once", "Limits.MaxTimers",
		"clear the ones you no longer need (call the function ctx.setTimeout / ctx.setInterval returns), " +
			"and do not let a timer callback schedule more than one new timer"},
	quotaListeners: {"event listeners at once", "Limits.MaxListeners",
		"register each listener once, in apply, and call the function ctx.on returns to remove one you no longer need " +
			"(a listener that registers listeners multiplies with every event)"},
	quotaTools: {"tools at once", "Limits.MaxTools",
		"remove tools you no longer need (call the function ctx.tools.register returns), " +
			"or let one tool take a parameter instead of registering a tool per item"},
	quotaServices: {"provided services", "Limits.MaxServices",
		"provide one object with several methods instead of a service per item"},
}

// limit returns the budget of kind k.
func (r *Realm) quotaLimit(k quotaKind) int {
	l := &r.engine.limits
	switch k {
	case quotaTimers:
		return l.MaxTimers
	case quotaListeners:
		return l.MaxListeners
	case quotaTools:
		return l.MaxTools
	}
	return l.MaxServices
}

// take reserves one unit of the activation's budget k for method, or throws a TypeError
// that names the budget and how to stay within it. The returned release gives the unit
// back; it may be called any number of times, from any goroutine. Lock held.
func (f *ctxFacade) take(k quotaKind, method string) (release func()) {
	r := f.r
	n := &f.quota[k]
	limit := r.quotaLimit(k)
	if n.Add(1) > int64(limit) {
		n.Add(-1)
		info := quotaInfo[k]
		r.throwf("%s: %s: more than %d %s (%s); %s", r.id, method, limit, info.what, info.field, info.fix)
	}
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			n.Add(-1)
		}
	}
}

// takeTool reserves one tool of the mount's Limits.MaxTools for method; see take.
func (f *ctxFacade) takeTool(method string) (release func()) { return f.take(quotaTools, method) }
