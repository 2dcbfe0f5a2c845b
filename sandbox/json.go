package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"io"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// ToJSON converts v to JSON, strictly: strings, finite numbers, booleans, null, arrays and
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

// appendJSON appends v as JSON to b: one document, with a budget of its own.
func (r *Realm) appendJSON(b []byte, v goja.Value, path string, depth int) ([]byte, error) {
	return r.appendJSONIn(newBudget(r), b, v, &pathStack{root: path}, depth)
}

// appendJSONIn appends v, at path at, as JSON to b, each value taking an element of bud.
// The path is rendered only for an error. Lock held.
func (r *Realm) appendJSONIn(bud *conv.Budget, b []byte, v goja.Value, at *pathStack, depth int) ([]byte, error) {
	lim := &r.loop.limits
	if len(b) > lim.MaxBytes {
		return nil, &conv.ArgError{Param: at.String(), Want: fmt.Sprintf("JSON data of at most %d bytes", lim.MaxBytes), Got: "more"}
	}
	if !bud.HasNodes(1) {
		return nil, bud.NeedNodes(1, at.String())
	}
	bud.Nodes--
	switch {
	case v == nil || goja.IsUndefined(v):
		return nil, &conv.ArgError{Param: at.String(), Want: "JSON data", Got: "undefined"}
	case goja.IsNull(v):
		return append(b, "null"...), nil
	case goja.IsString(v):
		// Its JSON is at least a byte per UTF-16 unit: refuse before Go copies it.
		if n := v.(goja.String).Length(); n > lim.MaxBytes-len(b) {
			return nil, &conv.ArgError{Param: at.String(), Want: fmt.Sprintf("JSON data of at most %d bytes", lim.MaxBytes), Got: fmt.Sprintf("a string of %d UTF-16 units", n)}
		}
		b = appendJSONString(b, v.String())
		if len(b) > lim.MaxBytes {
			return nil, &conv.ArgError{Param: at.String(), Want: fmt.Sprintf("JSON data of at most %d bytes", lim.MaxBytes), Got: "more"}
		}
		return b, nil
	case goja.IsNumber(v):
		f := v.ToFloat()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, &conv.ArgError{Param: at.String(), Want: "JSON data (a finite number)", Got: conv.TypeName(v)}
		}
		return appendJSONNumber(b, f), nil
	}
	o, ok := v.(*goja.Object)
	if !ok {
		if v.ExportType() != nil && v.ExportType().Kind() == reflect.Bool {
			return strconv.AppendBool(b, v.ToBoolean()), nil
		}
		return nil, &conv.ArgError{Param: at.String(), Want: "JSON data", Got: conv.TypeName(v)}
	}
	if depth >= lim.MaxDepth {
		return nil, &conv.ArgError{Param: at.String(), Want: fmt.Sprintf("JSON data nested at most %d levels deep", lim.MaxDepth), Got: "deeper nesting (a cycle?)"}
	}
	if _, fn := goja.AssertFunction(o); fn {
		return nil, &conv.ArgError{Param: at.String(), Want: "JSON data", Got: "function"}
	}
	objProto, arrProto := r.protos()
	switch o.ClassName() {
	case "Array":
		if o.Prototype() != arrProto {
			return nil, &conv.ArgError{Param: at.String(), Want: "JSON data (a plain array)", Got: r.protoName(o, "an array subclass")}
		}
		n := conv.ArrayLen(o)
		if !bud.HasNodes(n) {
			return nil, bud.NeedNodes(n, at.String()) // before visiting a sparse array's holes one by one
		}
		b = append(b, '[')
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			at.pushIndex(int(i))
			b, err = r.appendJSONIn(bud, b, o.Get(strconv.FormatInt(i, 10)), at, depth+1)
			at.pop()
			if err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case "Object":
		// Only plain objects: a Map, a Set, a typed array, a class instance… would lose
		// their contents (or their meaning) as {}.
		if p := o.Prototype(); p != nil && p != objProto {
			return nil, &conv.ArgError{Param: at.String(), Want: "JSON data (a plain object or array)", Got: r.protoName(o, "an object with a custom prototype")}
		}
		keys := o.Keys()
		if !bud.HasNodes(int64(len(keys))) {
			return nil, bud.NeedNodes(int64(len(keys)), at.String())
		}
		b = append(b, '{')
		first := true
		for _, k := range keys {
			kv := o.Get(k)
			if kv == nil || goja.IsUndefined(kv) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONString(b, k)
			b = append(b, ':')
			var err error
			at.pushKey(k)
			b, err = r.appendJSONIn(bud, b, kv, at, depth+1)
			at.pop()
			if err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, &conv.ArgError{Param: at.String(), Want: "JSON data (a plain object or array)", Got: conv.TypeName(o)}
}

// protos returns the realm's intrinsic Object.prototype and Array.prototype (whatever mount
// code did to the globals). Lock held.
func (r *Realm) protos() (obj, arr *goja.Object) {
	if r.objectProto == nil {
		r.objectProto = r.rt.NewObject().Prototype()
		r.arrayProto = r.rt.NewArray().Prototype()
	}
	return r.objectProto, r.arrayProto
}

// protoName names what o is an instance of ("Map", "Uint8Array", a class name) for an
// error message, or returns def. A getter that throws is ignored; an interrupt is not.
// Lock held.
func (r *Realm) protoName(o *goja.Object, def string) string {
	name := ""
	err := r.try(func() {
		p := o.Prototype()
		if p == nil {
			return
		}
		c, ok := p.Get("constructor").(*goja.Object)
		if !ok {
			return
		}
		if n := c.Get("name"); n != nil && goja.IsString(n) {
			name = n.String()
		}
	})
	if err != nil {
		if ex := (*goja.Exception)(nil); !errors.As(err, &ex) {
			panic(err) // uncatchable: a time bound, a stack overflow
		}
	}
	if name == "" || len(name) > 64 {
		return def
	}
	return name
}

// joinPath appends an object key to a path: "a.b", or "a[\"odd key\"]".
func joinPath(path, key string) string {
	if isIdent(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		rn, size := utf8.DecodeRuneInString(s[i:])
		if rn == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONNumber formats f as JavaScript (and encoding/json) would.
func appendJSONNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0') // -0 too, as JSON.stringify
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	abs := math.Abs(f)
	fmtc := byte('f')
	if abs < 1e-6 || abs >= 1e21 {
		fmtc = 'e'
	}
	b = strconv.AppendFloat(b, f, fmtc, -1, 64)
	if fmtc == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

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

func (r *Realm) fromJSON(raw []byte) (goja.Value, error) { return r.fromJSONIn(newBudget(r), raw) }

// fromJSONIn is fromJSON within bud: the document's values take elements and its bytes
// take bytes (a bound on its strings).
func (r *Realm) fromJSONIn(bud *conv.Budget, raw []byte) (goja.Value, error) {
	lim := &r.loop.limits
	if len(raw) > lim.MaxBytes {
		return nil, fmt.Errorf("JSON document of %d bytes exceeds the %d-byte limit", len(raw), lim.MaxBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return goja.Undefined(), nil
	}
	if err := bud.TakeBytes(len(raw), "the JSON document"); err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	v, err := r.decodeJSON(bud, d, 0, &pathStack{})
	if err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("decoding JSON: data after the top-level value")
	}
	return v, nil
}

// decodeJSON decodes the next value of d, at path, each value taking an element of bud.
func (r *Realm) decodeJSON(bud *conv.Budget, d *json.Decoder, depth int, path *pathStack) (goja.Value, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if bud.Nodes == 0 {
		at := "the JSON document"
		if p := path.String(); p != "" {
			at += " at " + p
		}
		return nil, bud.NeedNodes(1, at)
	}
	bud.Nodes--
	switch t := tok.(type) {
	case nil:
		return goja.Null(), nil
	case bool:
		return r.rt.ToValue(t), nil
	case string:
		return r.rt.ToValue(t), nil
	case json.Number:
		return numberValue(r.rt, string(t))
	case json.Delim:
		if depth >= r.loop.limits.MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", r.loop.limits.MaxDepth)
		}
		if t == '[' {
			var items []any
			for d.More() {
				path.pushIndex(len(items))
				v, err := r.decodeJSON(bud, d, depth+1, path)
				path.pop()
				if err != nil {
					return nil, err
				}
				items = append(items, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return r.rt.NewArray(items...), nil
		}
		o := r.rt.NewObject()
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			path.pushKey(k)
			v, err := r.decodeJSON(bud, d, depth+1, path)
			path.pop()
			if err != nil {
				return nil, err
			}
			if err := o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, err
			}
		}
		if _, err := d.Token(); err != nil {
			return nil, err
		}
		return o, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

func numberValue(rt *goja.Runtime, s string) (goja.Value, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil && i <= conv.MaxSafeInt && i >= -conv.MaxSafeInt {
		return rt.ToValue(i), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, err
	}
	return rt.ToValue(f), nil // like JSON.parse: beyond 2^53 rounds, beyond ±1.8e308 is ±Infinity
}

// anyValue converts plain Go data into a fresh JS value: nil, booleans, strings, numbers,
// json.RawMessage, and slices, arrays and string-keyed maps of those are converted
// directly; anything else goes through encoding/json (so a struct becomes a plain object of
// its exported fields and no Go method is ever reachable). An integer beyond ±2^53, which a
// JS number cannot hold exactly, throws, as do values encoding/json rejects. It is
// sandbox/bind's FromAny. Lock held.
func anyValue(r *Realm, v any) goja.Value {
	out, err := r.fromAny(newBudget(r), v, 0)
	if err != nil {
		r.throw(err)
	}
	return out
}

// fromAny converts v, each value taking an element of bud and each string its bytes: Go
// data shares too ([]any{x, x}), and the copy is made in full.
func (r *Realm) fromAny(bud *conv.Budget, v any, depth int) (goja.Value, error) {
	rt := r.rt
	if err := bud.TakeNodes(1, "the Go value"); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case string:
		if len(x) > r.loop.limits.MaxBytes {
			return nil, fmt.Errorf("string of %d bytes exceeds the %d-byte limit", len(x), r.loop.limits.MaxBytes)
		}
		if err := bud.TakeBytes(len(x), "the Go value"); err != nil {
			return nil, err
		}
		return rt.ToValue(x), nil
	case bool:
		return rt.ToValue(x), nil
	case float64:
		return rt.ToValue(x), nil
	case float32:
		return rt.ToValue(float64(x)), nil
	case int:
		return safeInt(rt, int64(x))
	case int8:
		return rt.ToValue(int64(x)), nil
	case int16:
		return rt.ToValue(int64(x)), nil
	case int32:
		return rt.ToValue(int64(x)), nil
	case uint8:
		return rt.ToValue(int64(x)), nil
	case uint16:
		return rt.ToValue(int64(x)), nil
	case uint32:
		return rt.ToValue(int64(x)), nil
	case int64:
		return safeInt(rt, x)
	case uint:
		return safeUint(rt, uint64(x))
	case uint64:
		return safeUint(rt, x)
	case json.RawMessage:
		return r.fromJSONIn(bud, x)
	case []any:
		if depth >= r.loop.limits.MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", r.loop.limits.MaxDepth)
		}
		if err := bud.NeedNodes(int64(len(x)), "the Go value"); err != nil {
			return nil, err
		}
		items := make([]any, len(x))
		for i, e := range x {
			ev, err := r.fromAny(bud, e, depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = ev
		}
		return rt.NewArray(items...), nil
	case []string:
		if err := bud.TakeNodes(int64(len(x)), "the Go value"); err != nil {
			return nil, err
		}
		items := make([]any, len(x))
		for i, e := range x {
			if err := bud.TakeBytes(len(e), "the Go value"); err != nil {
				return nil, err
			}
			items[i] = e
		}
		return rt.NewArray(items...), nil
	case map[string]any:
		if depth >= r.loop.limits.MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", r.loop.limits.MaxDepth)
		}
		o := rt.NewObject()
		for _, k := range sortedKeys(x) {
			ev, err := r.fromAny(bud, x[k], depth+1)
			if err != nil {
				return nil, err
			}
			if err := o.DefineDataProperty(k, ev, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, err
			}
		}
		return o, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("converting %T to JavaScript: %w", v, err)
	}
	return r.fromJSONIn(bud, b)
}

func safeInt(rt *goja.Runtime, i int64) (goja.Value, error) {
	if i > conv.MaxSafeInt || i < -conv.MaxSafeInt {
		return nil, fmt.Errorf("integer %d is outside ±2^53 and cannot be represented exactly as a JavaScript number", i)
	}
	return rt.ToValue(i), nil
}

func safeUint(rt *goja.Runtime, u uint64) (goja.Value, error) {
	if u > conv.MaxSafeInt {
		return nil, fmt.Errorf("integer %d is outside ±2^53 and cannot be represented exactly as a JavaScript number", u)
	}
	return rt.ToValue(int64(u)), nil
}
