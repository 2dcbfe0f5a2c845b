package sandbox

import (
	"encoding/json"

	"github.com/cordiskit/cordiskit/sandbox/internal/jsjson"
	"github.com/dop251/goja"
)

// The JSON codec — JavaScript values to JSON and back, and plain Go data to JavaScript —
// lives in sandbox/internal/jsjson; this file is the sandbox's face of it.

// ToJSON converts v to JSON (sandbox/internal/jsjson), strictly: strings, finite numbers, booleans, null, arrays and
// plain objects (own enumerable string keys; a property whose value is undefined is left
// out, as JSON.stringify does). Anything else — undefined, a function, a symbol, a bigint,
// NaN or ±Infinity, a Date, a Map, a typed array, a hole in an array, nesting deeper than
// Limits.MaxDepth (a cycle) — throws a TypeError naming the offending path
// ("result.items[2].when"); a document larger than Limits.MaxBytes or of more than
// Limits.MaxNodes values (a shared object counts each time it is written) throws a
// *LimitError, found as the document grows. Lone UTF-16 surrogates become U+FFFD. Lock
// held.
func ToJSON(r *Realm, v goja.Value, path string) json.RawMessage {
	b, err := r.appendJSON(nil, v, path, 0)
	if err != nil {
		r.throw(err)
	}
	return b
}

// toJSON is ToJSON returning the error (a value of the wrong type, or what a getter threw) instead of
// throwing. Lock held.
func (r *Realm) toJSON(v goja.Value, path string) (json.RawMessage, error) {
	var b []byte
	var aerr error
	err := r.try(func() { b, aerr = r.appendJSON(nil, v, path, 0) })
	if err != nil {
		return nil, err
	}
	return b, aerr
}

// appendJSON appends v as JSON to b: one document, with a budget of its own. depth is v's
// nesting (0 at the top).
func (r *Realm) appendJSON(b []byte, v goja.Value, path string, depth int) ([]byte, error) {
	return jsjson.Append(jsonRealm{r}, newBudget(r), b, v, jsjson.NewPath(path), depth)
}

// A jsonRealm is a realm as package jsjson needs it: a value of one pointer, so passing
// one does not allocate. Lock held.
type jsonRealm struct{ r *Realm }

func (j jsonRealm) Runtime() *goja.Runtime { return j.r.rt }
func (j jsonRealm) Limits() (maxBytes, maxDepth int) {
	return j.r.engine.limits.MaxBytes, j.r.engine.limits.MaxDepth
}
func (j jsonRealm) Protos() (object, array *goja.Object) { return j.r.protos() }
func (j jsonRealm) Try(f func()) error                   { return j.r.try(f) }

// protos returns the realm's intrinsic Object.prototype and Array.prototype (whatever mount
// code did to the globals). Lock held.
func (r *Realm) protos() (obj, arr *goja.Object) {
	if r.objectProto == nil {
		r.objectProto = r.rt.NewObject().Prototype()
		r.arrayProto = r.rt.NewArray().Prototype()
	}
	return r.objectProto, r.arrayProto
}

// joinPath appends an object key to a path: "a.b", or "a[\"odd key\"]".
func joinPath(path, key string) string { return jsjson.JoinPath(path, key) }

// FromJSON converts a JSON document into a fresh JS value (object keys keep their order; a
// "__proto__" key becomes an ordinary own property). Invalid JSON, or a document larger than
// Limits.MaxBytes, nested deeper than Limits.MaxDepth or of more than Limits.MaxNodes
// values, throws. Lock held.
func FromJSON(r *Realm, raw json.RawMessage) goja.Value {
	v, err := r.fromJSON(raw)
	if err != nil {
		r.throw(err)
	}
	return v
}

func (r *Realm) fromJSON(raw []byte) (goja.Value, error) {
	return jsjson.Decode(jsonRealm{r}, newBudget(r), raw)
}

// anyValue converts plain Go data into a fresh JS value: nil, booleans, strings, numbers,
// json.RawMessage, and slices, arrays and string-keyed maps of those are converted
// directly; anything else goes through encoding/json (so a struct becomes a plain object of
// its exported fields and no Go method is ever reachable). An integer beyond ±2^53, which a
// JS number cannot hold exactly, throws, as do values encoding/json rejects. It is
// sandbox/bind's FromAny. Lock held.
func anyValue(r *Realm, v any) goja.Value {
	out, err := jsjson.FromAny(jsonRealm{r}, newBudget(r), v, 0)
	if err != nil {
		r.throw(err)
	}
	return out
}
