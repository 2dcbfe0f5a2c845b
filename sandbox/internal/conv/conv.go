// Package conv reads JavaScript values as Go ones for package sandbox and for its binding
// contract, sandbox/bind: one implementation behind the sandbox's own natives (ctx.on,
// btoa, TextEncoder, …) and the generated façade's arguments. A value of the wrong type
// throws an [ArgError] into the realm, through [Thrower].
package conv

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// MaxSafeInt is 2^53: JavaScript numbers represent every integer up to it exactly.
const MaxSafeInt = 1 << 53

// A Thrower raises an error in JavaScript: package sandbox's adapter of a realm, whose Throw makes an
// [ArgError] a TypeError. Throw does not return.
type Thrower interface{ Throw(err error) }

// An ArgError reports a JavaScript argument or value of the wrong type for a Go parameter
// ("fs.readFile: parameter path: expected a string, got number"), or a value at a path
// ("result.items[2]: expected JSON data, got function"). Thrown into JavaScript it becomes
// a TypeError.
type ArgError struct {
	Method string // "fs.readFile"
	Param  string // "path", or a path inside it such as "opts.limit"
	Want   string // "a string"
	Got    string // "number"
}

func (e *ArgError) Error() string {
	var b strings.Builder
	if e.Method != "" {
		b.WriteString(e.Method)
		b.WriteString(": ")
	}
	if e.Param != "" {
		if e.Method != "" {
			b.WriteString("parameter ")
		}
		b.WriteString(e.Param)
		b.WriteString(": ")
	}
	b.WriteString("expected ")
	b.WriteString(e.Want)
	if e.Got != "" {
		b.WriteString(", got ")
		b.WriteString(e.Got)
	}
	return b.String()
}

// PromiseType is the Go type goja exports a Promise object as.
var PromiseType = reflect.TypeFor[*goja.Promise]()

// TypeName names a JS value's type for error messages: undefined, null, boolean, number,
// string, symbol, bigint, function, array or object.
func TypeName(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	case goja.IsString(v):
		return "string"
	case goja.IsNumber(v):
		if goja.IsNaN(v) {
			return "NaN"
		}
		if goja.IsInfinity(v) {
			return "Infinity"
		}
		return "number"
	case goja.IsBigInt(v):
		return "bigint"
	}
	switch o := v.(type) {
	case *goja.Symbol:
		return "symbol"
	case *goja.Object:
		if _, ok := goja.AssertFunction(o); ok {
			return "function"
		}
		if o.ExportType() == PromiseType {
			return "Promise"
		}
		switch c := o.ClassName(); c {
		case "Array":
			return "array"
		case "Object":
			return "object"
		default:
			return c // Date, Map, Promise, Uint8Array, …
		}
	}
	if v.ExportType() != nil && v.ExportType().Kind() == reflect.Bool {
		return "boolean"
	}
	return "value"
}

// IsObject reports whether v is an object (a function and an array too).
func IsObject(v goja.Value) bool {
	_, ok := v.(*goja.Object)
	return ok
}

// ArrayLen is the length of array o.
func ArrayLen(o *goja.Object) int64 {
	return o.Get("length").ToInteger()
}

// Throw throws an [ArgError] for v, of the wrong type: want is what was expected.
func Throw(r Thrower, method, param, want string, got goja.Value) {
	r.Throw(&ArgError{Method: method, Param: param, Want: want, Got: TypeName(got)})
}

// String returns v as a string of at most maxBytes bytes of UTF-8. Lone UTF-16 surrogates
// become U+FFFD. Any other type throws a TypeError such as
// "fs.readFile: parameter path: expected a string, got number".
func String(r Thrower, maxBytes int, v goja.Value, method, param string) string {
	gs, ok := v.(goja.String) // one assertion: this is on the path of every string argument
	if !ok {
		Throw(r, method, param, "a string", v)
	}
	// UTF-8 needs at least a byte per UTF-16 unit, so a string longer than the limit is
	// refused before Go copies it.
	if n := gs.Length(); n > maxBytes {
		r.Throw(&ArgError{Method: method, Param: param, Want: "a string of at most " + strconv.Itoa(maxBytes) + " bytes", Got: "at least " + strconv.Itoa(n) + " bytes"})
	}
	s := gs.String()
	if len(s) > maxBytes {
		r.Throw(&ArgError{Method: method, Param: param, Want: "a string of at most " + strconv.Itoa(maxBytes) + " bytes", Got: strconv.Itoa(len(s)) + " bytes"})
	}
	return s
}

// Bool returns v as a boolean (no truthiness: it must be true or false).
func Bool(r Thrower, v goja.Value, method, param string) bool {
	if v != nil && v.ExportType() != nil && v.ExportType().Kind() == reflect.Bool && !IsObject(v) {
		return v.ToBoolean()
	}
	Throw(r, method, param, "a boolean", v)
	return false
}

// Float returns v as a finite number.
func Float(r Thrower, v goja.Value, method, param string) float64 {
	if !goja.IsNumber(v) {
		Throw(r, method, param, "a finite number", v)
	}
	f := v.ToFloat()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		Throw(r, method, param, "a finite number", v)
	}
	return f
}

// Int returns v as an integer: a number with no fractional part within ±2^53.
func Int(r Thrower, v goja.Value, method, param string) int64 {
	if !goja.IsNumber(v) {
		Throw(r, method, param, "an integer", v)
	}
	f := v.ToFloat()
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		Throw(r, method, param, "an integer", v)
	case f != math.Trunc(f):
		r.Throw(&ArgError{Method: method, Param: param, Want: "an integer", Got: strconv.FormatFloat(f, 'g', -1, 64)})
	case f > MaxSafeInt || f < -MaxSafeInt:
		r.Throw(&ArgError{Method: method, Param: param, Want: "an integer between -2^53 and 2^53", Got: strconv.FormatFloat(f, 'f', -1, 64)})
	}
	return int64(f)
}

// Duration returns v, a non-negative number of milliseconds, as a Duration.
func Duration(r Thrower, v goja.Value, method, param string) time.Duration {
	if !goja.IsNumber(v) || goja.IsNaN(v) || goja.IsInfinity(v) {
		Throw(r, method, param, "a number of milliseconds", v)
	}
	ms := v.ToFloat()
	if ms < 0 || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		r.Throw(&ArgError{Method: method, Param: param, Want: "a number of milliseconds between 0 and 2^63 ns", Got: strconv.FormatFloat(ms, 'g', -1, 64)})
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// Object returns v as a plain object (not null, an array or a function).
func Object(r Thrower, v goja.Value, method, param string) *goja.Object {
	o, ok := v.(*goja.Object)
	if ok {
		if _, fn := goja.AssertFunction(o); !fn && o.ClassName() != "Array" {
			return o
		}
	}
	Throw(r, method, param, "an object", v)
	return nil
}

// Callback returns v as a function.
func Callback(r Thrower, v goja.Value, method, param string) goja.Callable {
	if fn, ok := goja.AssertFunction(v); ok {
		return fn
	}
	Throw(r, method, param, "a function", v)
	return nil
}
