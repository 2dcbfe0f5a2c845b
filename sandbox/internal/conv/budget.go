package conv

import (
	"strconv"

	"github.com/dop251/goja"
)

// A Budget bounds the output of one conversion — one argument of a Go method, one JSON
// document, one value crossing the membrane — to MaxNodes elements and MaxBytes bytes of
// strings (the realm's Limits), counting what the conversion produces, as it goes and
// before it allocates. Package sandbox documents the bound (sandbox.LimitError) and makes
// the budgets of its own conversions; sandbox/bind gives one to each budgeted conversion of
// generated code. The methods throw through T, or return, the error Exceeded makes when
// the budget runs out. Lock held.
type Budget struct {
	T                  Thrower
	MaxNodes, MaxBytes int  // the limits in force
	Nodes, Bytes       int  // what is left
	Shares             bool // the conversion copies a shared array once (the membrane)
	// Exceeded makes the error of a conversion that outgrew the budget: a
	// *sandbox.LimitError.
	Exceeded func(Limit) error
}

// A Limit describes where a budget ran out, as sandbox.LimitError reports it.
type Limit struct {
	Path  string // the value's path
	What  string // "elements" or "bytes of strings"
	Limit int    // the limit in force
	Field string // the Limits field: "MaxNodes" or "MaxBytes"
	Got   string // what was found instead, when known before converting
	Tree  bool   // the copy is a tree, where a shared reference counts each time
}

// NewBudget returns a full budget of maxNodes elements and maxBytes bytes.
func NewBudget(t Thrower, maxNodes, maxBytes int, exceeded func(Limit) error) Budget {
	return Budget{T: t, MaxNodes: maxNodes, MaxBytes: maxBytes, Nodes: maxNodes, Bytes: maxBytes, Exceeded: exceeded}
}

// TakeNodes takes n elements for the value at path, or reports why it cannot. Lengths come
// from JavaScript, so n may be negative or beyond any allocation.
func (b *Budget) TakeNodes(n int64, path string) error {
	if err := b.NeedNodes(n, path); err != nil {
		return err
	}
	b.Nodes -= int(n)
	return nil
}

// HasNodes reports whether n more elements fit: the check without a path, for callers that
// render their path only on failure.
func (b *Budget) HasNodes(n int64) bool { return n >= 0 && n <= int64(b.Nodes) }

// NeedNodes reports whether n more elements fit, without taking them: an array's length,
// checked before its elements are visited one by one.
func (b *Budget) NeedNodes(n int64, path string) error {
	if b.HasNodes(n) {
		return nil
	}
	got := ""
	if n < 0 || n > int64(b.MaxNodes) {
		got = "an array of length " + strconv.FormatInt(n, 10)
	}
	return b.Exceeded(Limit{Path: path, What: "elements", Limit: b.MaxNodes, Field: "MaxNodes", Got: got, Tree: !b.Shares})
}

// TakeBytes takes n bytes of strings for the value at path, or reports why it cannot.
func (b *Budget) TakeBytes(n int, path string) error {
	if err := b.NeedBytes(n, path); err != nil {
		return err
	}
	b.Bytes -= n
	return nil
}

// NeedBytes reports whether n more bytes fit, without taking them.
func (b *Budget) NeedBytes(n int, path string) error {
	if n >= 0 && n <= b.Bytes {
		return nil
	}
	return b.Exceeded(Limit{Path: path, What: "bytes of strings", Limit: b.MaxBytes, Field: "MaxBytes", Tree: !b.Shares})
}

// Slice returns the elements of array v, taking one element of the budget for each. The
// length is checked before anything is allocated or read, so a sparse array of length
// 2^32−1 is refused at once.
func (b *Budget) Slice(v goja.Value, path string) []goja.Value {
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Array" {
		Throw(b.T, "", path, "an array", v)
	}
	n := ArrayLen(o)
	if err := b.TakeNodes(n, path); err != nil {
		b.T.Throw(err)
	}
	out := make([]goja.Value, n)
	for i := range out {
		out[i] = o.Get(strconv.Itoa(i))
	}
	return out
}

// String returns v as a string, like [String], taking its bytes from the budget.
func (b *Budget) String(v goja.Value, path string) string {
	if s, ok := v.(goja.String); ok {
		// UTF-8 needs at least a byte per UTF-16 unit: refuse before converting.
		if err := b.NeedBytes(s.Length(), path); err != nil {
			b.T.Throw(err)
		}
	}
	s := String(b.T, b.MaxBytes, v, "", path)
	if err := b.TakeBytes(len(s), path); err != nil {
		b.T.Throw(err)
	}
	return s
}

// Text returns the string form of any value (String(v) in JavaScript, which may run its
// toString), taking its bytes from the budget: for a Go error made from what JavaScript
// passed.
func (b *Budget) Text(v goja.Value, path string) string {
	if goja.IsString(v) {
		return b.String(v, path)
	}
	s := ""
	if v != nil {
		s = v.String()
	}
	if err := b.TakeBytes(len(s), path); err != nil {
		b.T.Throw(err)
	}
	return s
}

// Keys returns the own enumerable keys of o, for a conversion to a Go map: each key takes
// an element and its bytes from the budget.
func (b *Budget) Keys(o *goja.Object, path string) []string {
	keys := o.Keys()
	if err := b.TakeNodes(int64(len(keys)), path); err != nil {
		b.T.Throw(err)
	}
	for _, k := range keys {
		if err := b.TakeBytes(len(k), path); err != nil {
			b.T.Throw(err)
		}
	}
	return keys
}
