// Package jsjson converts between JSON and one realm's JavaScript values, and plain Go
// data into JavaScript, for package sandbox: strictly (only JSON data crosses; a Map, a
// class instance, a function, NaN… is a TypeError naming its path) and within a budget
// (sandbox/internal/conv.Budget: every value takes an element, strings take bytes, counted
// before they are allocated). The calls, each with the engine's lock held:
//
//	b, err := jsjson.Append(realm, bud, nil, v, jsjson.NewPath("result"), 0) // JavaScript → JSON
//	v, err := jsjson.Decode(realm, bud, raw)                            // JSON → JavaScript
//	v, err := jsjson.FromAny(realm, bud, x, 0)                          // Go data → JavaScript
//
// realm is package sandbox's adapter of its realm ([Realm]): the runtime, the limits, the
// intrinsic prototypes and a way to run JavaScript that may throw. Errors are returned,
// never thrown: the caller throws them into the realm or hands them to Go.
//
// A [Path] is the path of the value a conversion is at, kept as segments and rendered only
// when an error names it ("result.items[2].when", [JoinPath]), so converting a large value
// builds no strings.
package jsjson

import "github.com/dop251/goja"

// A Realm is what a conversion needs of the realm it runs in. Package sandbox's adapter
// is one pointer, so passing one does not allocate. Lock held for every method.
type Realm interface {
	// Runtime returns the realm's runtime.
	Runtime() *goja.Runtime
	// Limits returns the largest JSON document in bytes and the deepest nesting converted
	// (Limits.MaxBytes and Limits.MaxDepth).
	Limits() (maxBytes, maxDepth int)
	// Protos returns the realm's intrinsic Object.prototype and Array.prototype, whatever
	// mount code did to the globals.
	Protos() (object, array *goja.Object)
	// Try runs f and returns what it threw: a JavaScript exception, or an error that
	// JavaScript cannot catch (a time bound, a stack overflow).
	Try(f func()) error
}
