package sandbox

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox/internal/link"
	"github.com/dop251/goja"
)

// A Facade is the whitelist of what mount code may reach in Go: the catalogued events it
// may listen to, the Go services it may inject and the interface services it may
// implement, each through a binding that gen-cordis-api writes (or that is written by
// hand following sandbox/bind, the binding contract). A generated package exports one as
//
//	var Facade = &sandbox.Facade{Services: …, Events: …, Seams: …}
//
// Nothing else in Go is reachable from JavaScript.
type Facade struct {
	Services map[string]ServiceBinder // by service key
	Events   map[string]EventAdapter  // by event name
	// Seams holds, by service key, the interface services (abstract seams) a mount may
	// implement with ctx.provide(key, obj): Go code then gets a value of the interface that
	// calls obj. Each adapter is made by bind.NewSeamAdapter (sandbox/bind), which
	// documents it. A key with a binder and no adapter is a concrete Go service, which
	// JavaScript cannot stand in for.
	Seams map[string]*link.SeamAdapter
}

// A ServiceBinder builds the JS object for a Go service value v (taken from the kit
// store): only its façade methods, with typed argument and result conversion. It returns
// an error when v does not have the expected Go type. Generated code makes one with
// sandbox/bind's Object and FuncN/AsyncN; a hand-written one follows bind. Lock held.
type ServiceBinder func(r *Realm, v any) (*goja.Object, error)

// An EventAdapter subscribes JS function fn to a kit event for the fiber of c (the mount),
// converting each Go payload into positional JS arguments: generated code makes one with
// sandbox/bind's OnEmit, OnParallel, … (a hand-written one delivers with [Realm.Deliver]
// or bind.DeliverEmit).
// The returned off removes the listener; the listener is also an effect of c's fiber.
// Lock held: the adapter must not emit.
type EventAdapter func(r *Realm, c *kit.Context, fn goja.Callable) (off func(), err error)

// Merge combines façades (the kit's core tier plus a runtime's own). A service key or event
// name present in two of them is an error naming it. Nil façades are skipped.
func Merge(fs ...*Facade) (*Facade, error) {
	out := &Facade{Services: map[string]ServiceBinder{}, Events: map[string]EventAdapter{}, Seams: map[string]*link.SeamAdapter{}}
	var dups []string
	for _, f := range fs {
		if f == nil {
			continue
		}
		for k, b := range f.Services {
			if _, ok := out.Services[k]; ok {
				dups = append(dups, fmt.Sprintf("service %q", k))
			}
			out.Services[k] = b
		}
		for k, a := range f.Events {
			if _, ok := out.Events[k]; ok {
				dups = append(dups, fmt.Sprintf("event %q", k))
			}
			out.Events[k] = a
		}
		for k, a := range f.Seams {
			if _, ok := out.Seams[k]; ok {
				dups = append(dups, fmt.Sprintf("seam %q", k))
			}
			out.Seams[k] = a
		}
	}
	if len(dups) > 0 {
		slices.Sort(dups)
		dups = slices.Compact(dups)
		return nil, fmt.Errorf("sandbox: merging façades: %s declared more than once; each service key and event name must come from one façade", strings.Join(dups, ", "))
	}
	return out, nil
}

// EventNames returns the catalogued event names, sorted.
func (f *Facade) EventNames() []string {
	if f == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(f.Events))
}

// ServiceKeys returns the keys of the services with a binder, sorted.
func (f *Facade) ServiceKeys() []string {
	if f == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(f.Services))
}
