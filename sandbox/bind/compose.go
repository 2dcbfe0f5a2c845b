package bind

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/dop251/goja"
)

// A Budget bounds the output of one conversion — one argument of a Go method, one value
// a listener or a JavaScript implementation returned — to Limits.MaxNodes elements and
// Limits.MaxBytes bytes of strings. A value small in the JavaScript heap can be huge once
// copied (an array holding one array twice, forty levels deep, is 2^40 leaves; an array
// of references to one long string is that string many times over), so the budget counts
// what the conversion produces, as it goes and before it allocates; a copy into Go is a
// tree, so every copy of a shared reference counts again. Generated code makes one per
// conversion ([NewBudget], or [Budgeted]) and passes it down through its [Conv]s; the
// methods throw a *sandbox.LimitError naming the path when the budget runs out. Lock
// held.
type Budget struct {
	r *sandbox.Realm
	c conv.Budget
}

// NewBudget returns a full budget for one conversion in r. Lock held.
func NewBudget(r *sandbox.Realm) *Budget {
	b := &Budget{r: r}
	realms.Budget(r, &b.c)
	return b
}

// Slice returns the elements of array v, taking one element of the budget for each. The
// length is checked before anything is allocated or read, so a sparse array of length
// 2^32−1 is refused at once.
func (b *Budget) Slice(v goja.Value, path string) []goja.Value { return b.c.Slice(v, path) }

// String returns v as a string, like [ToString], taking its bytes from the budget.
func (b *Budget) String(v goja.Value, path string) string { return b.c.String(v, path) }

// Text returns the string form of any value (String(v) in JavaScript, which may run its
// toString), taking its bytes from the budget: for a Go error made from what JavaScript
// passed.
func (b *Budget) Text(v goja.Value, path string) string { return b.c.Text(v, path) }

// Keys returns the own enumerable keys of o, for a conversion to a Go map: each key takes
// an element and its bytes from the budget.
func (b *Budget) Keys(o *goja.Object, path string) []string { return b.c.Keys(o, path) }

// JSON converts v to JSON like sandbox.ToJSON, within the budget: the document's values
// take elements and its bytes take bytes.
func (b *Budget) JSON(v goja.Value, path string) json.RawMessage {
	return realms.JSON(b.r, &b.c, v, path)
}

// A Conv converts v to a T inside one conversion, taking strings' bytes and arrays' and
// maps' elements from its budget b, so that a value small in the JavaScript heap cannot
// make Go copy without end; path names v in a TypeError. The fromJS helpers of the
// generated code are Convs.
type Conv[T any] func(r *sandbox.Realm, b *Budget, v goja.Value, path string) T

// Text is the Conv of a string type: its bytes taken from the budget.
func Text[T ~string](r *sandbox.Realm, b *Budget, v goja.Value, path string) T {
	return T(b.String(v, path))
}

// RawJSON is the Conv of json.RawMessage: the value as JSON, its bytes taken from the
// budget.
func RawJSON(r *sandbox.Realm, b *Budget, v goja.Value, path string) json.RawMessage {
	return b.JSON(v, path)
}

// Unbudgeted makes a Conv of a From that takes nothing from a budget (a number, a
// boolean).
func Unbudgeted[T any](from From[T]) Conv[T] {
	return func(r *sandbox.Realm, _ *Budget, v goja.Value, path string) T { return from(r, v, path) }
}

// FromSlice is the Conv of a slice of elem's type: undefined or null is a nil slice, as
// encoding/json decodes null.
func FromSlice[T any](elem Conv[T]) Conv[[]T] {
	return func(r *sandbox.Realm, b *Budget, v goja.Value, path string) []T {
		if absent(v) {
			return nil
		}
		vs := b.Slice(v, path)
		out := make([]T, len(vs))
		for i, e := range vs {
			out[i] = elem(r, b, e, path+"["+strconv.Itoa(i)+"]")
		}
		return out
	}
}

// FromMap is the Conv of a map from a string type to elem's type: undefined or null is a
// nil map, as for a slice.
func FromMap[K ~string, V any](elem Conv[V]) Conv[map[K]V] {
	return func(r *sandbox.Realm, b *Budget, v goja.Value, path string) map[K]V {
		if absent(v) {
			return nil
		}
		o := ToObject(r, v, path)
		out := map[K]V{}
		for _, k := range b.Keys(o, path) {
			out[K(k)] = elem(r, b, o.Get(k), path+"."+k)
		}
		return out
	}
}

// FromPtr is the Conv of a pointer to elem's type: undefined or null is nil.
func FromPtr[T any](elem Conv[T]) Conv[*T] {
	return func(r *sandbox.Realm, b *Budget, v goja.Value, path string) *T {
		if absent(v) {
			return nil
		}
		x := elem(r, b, v, path)
		return &x
	}
}

// SliceValue is the JavaScript array of xs, each element built by elem. Lock held.
func SliceValue[T any](r *sandbox.Realm, xs []T, elem Result[T]) goja.Value {
	vals := make([]any, len(xs))
	for i, e := range xs {
		vals[i] = elem(r, e)
	}
	return realms.Runtime(r).NewArray(vals...)
}

// MapValue is the JavaScript object of m, each value built by elem, its keys in sorted
// order, so the object's key order does not depend on map iteration. Every key is an own
// property: a "__proto__" key does not set the object's prototype. Lock held.
func MapValue[K ~string, V any](r *sandbox.Realm, m map[K]V, elem Result[V]) goja.Value {
	o := realms.Runtime(r).NewObject()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		define(o, string(k), elem(r, m[k])) // a key from Go data, "__proto__" too, is an own key
	}
	return o
}

// PtrValue is what elem builds of *x, or null for a nil x. Lock held.
func PtrValue[T any](r *sandbox.Realm, x *T, elem Result[T]) goja.Value {
	if x == nil {
		return goja.Null()
	}
	return elem(r, *x)
}

// SliceResult is the Result of a slice: SliceValue with elem.
func SliceResult[T any](elem Result[T]) Result[[]T] {
	return func(r *sandbox.Realm, xs []T) goja.Value { return SliceValue(r, xs, elem) }
}

// MapResult is the Result of a map: MapValue with elem.
func MapResult[K ~string, V any](elem Result[V]) Result[map[K]V] {
	return func(r *sandbox.Realm, m map[K]V) goja.Value { return MapValue(r, m, elem) }
}

// PtrResult is the Result of a pointer: PtrValue with elem.
func PtrResult[T any](elem Result[T]) Result[*T] {
	return func(r *sandbox.Realm, x *T) goja.Value { return PtrValue(r, x, elem) }
}

// Field converts the property key of o, the object at path, into *dst with conv, unless
// it is undefined or null: as encoding/json decodes a struct, a field the object leaves
// out keeps Go's zero value.
func Field[T any](r *sandbox.Realm, b *Budget, o *goja.Object, path, key string, dst *T, conv Conv[T]) {
	if x := o.Get(key); !absent(x) {
		*dst = conv(r, b, x, path+"."+key)
	}
}
