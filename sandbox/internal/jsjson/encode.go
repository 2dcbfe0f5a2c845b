package jsjson

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/dop251/goja"
)

// Append appends v, at path at, as JSON to b, strictly: strings, finite numbers, booleans,
// null, arrays and plain objects (own enumerable string keys; a property whose value is
// undefined is left out, as JSON.stringify does). Anything else — undefined, a function, a
// symbol, a bigint, NaN or ±Infinity, a Date, a Map, a typed array, a hole in an array,
// nesting deeper than the realm's depth limit (a cycle) — is a *conv.ArgError naming the
// offending path; a document larger than the realm's byte limit is one too, and running
// out of bud's elements is its error. Each value takes an element of bud (a shared object
// counts each time it is written); the caller charges the bytes. Lone UTF-16 surrogates
// become U+FFFD. Lock held; depth is v's nesting (0 at the top).
func Append(r Realm, bud *conv.Budget, b []byte, v goja.Value, at *Path, depth int) ([]byte, error) {
	maxBytes, maxDepth := r.Limits()
	return appendValue(r, maxBytes, maxDepth, bud, b, v, at, depth)
}

// appendValue is Append with the realm's limits read.
func appendValue(r Realm, maxBytes, maxDepth int, bud *conv.Budget, b []byte, v goja.Value, at *Path, depth int) ([]byte, error) {
	if len(b) > maxBytes {
		return nil, &conv.ArgError{Param: at.String(), Want: fmt.Sprintf("JSON data of at most %d bytes", maxBytes), Got: "more"}
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
		if n := v.(goja.String).Length(); n > maxBytes-len(b) {
			return nil, &conv.ArgError{Param: at.String(), Want: fmt.Sprintf("JSON data of at most %d bytes", maxBytes), Got: fmt.Sprintf("a string of %d UTF-16 units", n)}
		}
		b = AppendString(b, v.String())
		if len(b) > maxBytes {
			return nil, &conv.ArgError{Param: at.String(), Want: fmt.Sprintf("JSON data of at most %d bytes", maxBytes), Got: "more"}
		}
		return b, nil
	case goja.IsNumber(v):
		f := v.ToFloat()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, &conv.ArgError{Param: at.String(), Want: "JSON data (a finite number)", Got: conv.TypeName(v)}
		}
		return AppendNumber(b, f), nil
	}
	o, ok := v.(*goja.Object)
	if !ok {
		if v.ExportType() != nil && v.ExportType().Kind() == reflect.Bool {
			return strconv.AppendBool(b, v.ToBoolean()), nil
		}
		return nil, &conv.ArgError{Param: at.String(), Want: "JSON data", Got: conv.TypeName(v)}
	}
	if depth >= maxDepth {
		return nil, &conv.ArgError{Param: at.String(), Want: fmt.Sprintf("JSON data nested at most %d levels deep", maxDepth), Got: "deeper nesting (a cycle?)"}
	}
	if _, fn := goja.AssertFunction(o); fn {
		return nil, &conv.ArgError{Param: at.String(), Want: "JSON data", Got: "function"}
	}
	objProto, arrProto := r.Protos()
	switch o.ClassName() {
	case "Array":
		if o.Prototype() != arrProto {
			return nil, &conv.ArgError{Param: at.String(), Want: "JSON data (a plain array)", Got: protoName(r, o, "an array subclass")}
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
			b, err = appendValue(r, maxBytes, maxDepth, bud, b, o.Get(strconv.FormatInt(i, 10)), at, depth+1)
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
			return nil, &conv.ArgError{Param: at.String(), Want: "JSON data (a plain object or array)", Got: protoName(r, o, "an object with a custom prototype")}
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
			b = AppendString(b, k)
			b = append(b, ':')
			var err error
			at.pushKey(k)
			b, err = appendValue(r, maxBytes, maxDepth, bud, b, kv, at, depth+1)
			at.pop()
			if err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, &conv.ArgError{Param: at.String(), Want: "JSON data (a plain object or array)", Got: conv.TypeName(o)}
}

// protoName names what o is an instance of ("Map", "Uint8Array", a class name) for an
// error message, or returns def. A getter that throws is ignored; an interrupt is not.
// Lock held.
func protoName(r Realm, o *goja.Object, def string) string {
	name := ""
	err := r.Try(func() {
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

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
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

// AppendNumber appends f formatted as JavaScript (and encoding/json) would.
func AppendNumber(b []byte, f float64) []byte {
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
