package sandbox

import (
	"encoding/json"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"strconv"

	"github.com/dop251/goja"
)

// A Budget bounds the output of one conversion — one argument of a Go method, one JSON
// document, one value crossing the membrane — to Limits.MaxNodes elements and
// Limits.MaxBytes bytes of strings. A value small in the JavaScript heap can be huge once
// copied (an array holding one array twice, forty levels deep, is 2^40 leaves; an array of
// references to one long string is that string many times over), so the budget counts what
// the conversion produces, as it goes and before it allocates. A copy into Go or JSON is a
// tree, so every copy of a shared reference counts again (the membrane copies a shared
// array once, see Provided). Generated façade code makes one per argument with NewBudget
// and passes it down; the methods throw a *LimitError when the budget runs out. Lock held.
type Budget struct {
	r            *Realm
	nodes, bytes int  // what is left
	shares       bool // the conversion copies a shared array once (the membrane)
}

// NewBudget returns a full budget for one conversion in r. Lock held.
func NewBudget(r *Realm) *Budget {
	return &Budget{r: r, nodes: r.loop.limits.MaxNodes, bytes: r.loop.limits.MaxBytes}
}

// A LimitError reports a converted value that outgrew its Budget, at the path where the
// budget ran out.
type LimitError struct {
	Path  string // "exec.run: parameter cmd.args[7]", "result.items", "ctx.svc.list[3]"
	What  string // "elements" or "bytes of strings"
	Limit int    // the limit in force
	Field string // the Limits field that sets it: "MaxNodes" or "MaxBytes"
	Got   string // what was found instead, when known before converting ("an array of length 4294967295")
	// Tree reports a copy made as a tree (into Go or JSON), where a shared reference
	// counts each time it is copied; the message says so.
	Tree bool
}

func (e *LimitError) Error() string {
	path := e.Path
	if path == "" {
		path = "the value"
	}
	got := ""
	if e.Got != "" {
		got = " (" + e.Got + ")"
	}
	tree := ""
	if e.Tree {
		tree = "; shared references count each time they are copied"
	}
	return fmt.Sprintf("%s: the value converts to more than %d %s%s%s (the bound is Limits.%s); pass less, or page it",
		path, e.Limit, e.What, got, tree, e.Field)
}

// takeNodes takes n elements for the value at path, or reports why it cannot. Lengths come
// from JavaScript, so n may be negative or beyond any allocation.
func (b *Budget) takeNodes(n int64, path string) error {
	if err := b.needNodes(n, path); err != nil {
		return err
	}
	b.nodes -= int(n)
	return nil
}

// hasNodes reports whether n more elements fit: the check without a path, for callers that
// render their path only on failure.
func (b *Budget) hasNodes(n int64) bool { return n >= 0 && n <= int64(b.nodes) }

// needNodes reports whether n more elements fit, without taking them: an array's length,
// checked before its elements are visited one by one.
func (b *Budget) needNodes(n int64, path string) error {
	if b.hasNodes(n) {
		return nil
	}
	lim := b.r.loop.limits.MaxNodes
	got := ""
	if n < 0 || n > int64(lim) {
		got = "an array of length " + strconv.FormatInt(n, 10)
	}
	return &LimitError{Path: path, What: "elements", Limit: lim, Field: "MaxNodes", Got: got, Tree: !b.shares}
}

// takeBytes takes n bytes of strings for the value at path, or reports why it cannot.
func (b *Budget) takeBytes(n int, path string) error {
	if err := b.needBytes(n, path); err != nil {
		return err
	}
	b.bytes -= n
	return nil
}

// needBytes reports whether n more bytes fit, without taking them.
func (b *Budget) needBytes(n int, path string) error {
	if n >= 0 && n <= b.bytes {
		return nil
	}
	return &LimitError{Path: path, What: "bytes of strings", Limit: b.r.loop.limits.MaxBytes, Field: "MaxBytes", Tree: !b.shares}
}

// Slice returns the elements of array v, like toSlice, taking one element of the budget
// for each. The length is checked before anything is allocated or read, so a sparse array
// of length 2^32−1 is refused at once.
func (b *Budget) Slice(v goja.Value, path string) []goja.Value {
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Array" {
		conv.Throw(b.r, "", path, "an array", v)
	}
	n := conv.ArrayLen(o)
	if err := b.takeNodes(n, path); err != nil {
		b.r.Throw(err)
	}
	out := make([]goja.Value, n)
	for i := range out {
		out[i] = o.Get(strconv.Itoa(i))
	}
	return out
}

// String returns v as a string, like sandbox/bind's ToString, taking its bytes from the budget.
func (b *Budget) String(v goja.Value, path string) string {
	if s, ok := v.(goja.String); ok {
		// UTF-8 needs at least a byte per UTF-16 unit: refuse before converting.
		if err := b.needBytes(s.Length(), path); err != nil {
			b.r.Throw(err)
		}
	}
	s := toString(b.r, v, "", path)
	if err := b.takeBytes(len(s), path); err != nil {
		b.r.Throw(err)
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
	if err := b.takeBytes(len(s), path); err != nil {
		b.r.Throw(err)
	}
	return s
}

// Keys returns the own enumerable keys of o, for a conversion to a Go map: each key takes
// an element and its bytes from the budget.
func (b *Budget) Keys(o *goja.Object, path string) []string {
	keys := o.Keys()
	if err := b.takeNodes(int64(len(keys)), path); err != nil {
		b.r.Throw(err)
	}
	for _, k := range keys {
		if err := b.takeBytes(len(k), path); err != nil {
			b.r.Throw(err)
		}
	}
	return keys
}

// JSON converts v to JSON like ToJSON, within the budget: the document's values take
// elements and its bytes take bytes.
func (b *Budget) JSON(v goja.Value, path string) json.RawMessage {
	out, err := b.r.appendJSONIn(b, nil, v, &pathStack{root: path}, 0)
	if err == nil {
		err = b.takeBytes(len(out), path)
	}
	if err != nil {
		b.r.Throw(err)
	}
	return out
}

// A pathStack is the path of the value a conversion is at, kept as segments and rendered
// only when an error names it, so that converting a large value builds no strings.
type pathStack struct {
	root string
	segs []pathSeg
}

type pathSeg struct {
	key   string
	index int
	isKey bool
}

func (p *pathStack) pushIndex(i int)  { p.segs = append(p.segs, pathSeg{index: i}) }
func (p *pathStack) pushKey(k string) { p.segs = append(p.segs, pathSeg{key: k, isKey: true}) }
func (p *pathStack) pop()             { p.segs = p.segs[:len(p.segs)-1] }

func (p *pathStack) String() string {
	s := p.root
	for _, seg := range p.segs {
		if seg.isKey {
			s = joinPath(s, seg.key)
		} else {
			s += "[" + strconv.Itoa(seg.index) + "]"
		}
	}
	return s
}
