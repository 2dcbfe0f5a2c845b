package sandbox

import (
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/dop251/goja"
)

// maxSafeInt is 2^53: JS numbers represent every integer up to it exactly.
const maxSafeInt = 1 << 53

// typeName names a JS value's type for error messages: undefined, null, boolean, number,
// string, symbol, bigint, function, array or object.
func typeName(v goja.Value) string {
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
		if o.ExportType() == promiseType {
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

// Passes reports whether v, what a serial or bail listener returned (or its promise
// settled with), is no answer: undefined, null or false, as in cordis. The generated
// façade turns such a result into the zero value of the event's result type without
// converting it, so false passes whatever that type is; Go's dispatch passes over the zero
// value, and so over any result that converts to it (an empty string, 0, an object whose
// fields are all zero or absent).
func Passes(v goja.Value) bool {
	return v == nil || goja.IsUndefined(v) || goja.IsNull(v) || isFalse(v)
}

// isFalse reports whether v is the primitive false (not a Boolean object).
func isFalse(v goja.Value) bool {
	return !isObject(v) && v.ExportType() != nil && v.ExportType().Kind() == reflect.Bool && !v.ToBoolean()
}

// argErr throws an *ArgError as a TypeError.
func (r *Realm) argErr(method, param, want string, got goja.Value) {
	r.Throw(&ArgError{Method: method, Param: param, Want: want, Got: typeName(got)})
}

// ArgString returns argument i as a string. Lone UTF-16 surrogates become U+FFFD. Any other
// type throws a TypeError such as "fs.readFile: parameter path: expected a string, got number".
func ArgString(r *Realm, call goja.FunctionCall, i int, method, param string) string {
	return toString(r, call.Argument(i), method, param)
}

// ArgBool returns argument i as a boolean (no truthiness: it must be true or false).
func ArgBool(r *Realm, call goja.FunctionCall, i int, method, param string) bool {
	return toBool(r, call.Argument(i), method, param)
}

// ArgInt returns argument i as an integer: a number with no fractional part within ±2^53.
func ArgInt(r *Realm, call goja.FunctionCall, i int, method, param string) int64 {
	return toInt(r, call.Argument(i), method, param)
}

// ArgFloat returns argument i as a finite number.
func ArgFloat(r *Realm, call goja.FunctionCall, i int, method, param string) float64 {
	return toFloat(r, call.Argument(i), method, param)
}

// ArgDuration returns argument i, a non-negative number of milliseconds, as a Duration.
func ArgDuration(r *Realm, call goja.FunctionCall, i int, method, param string) time.Duration {
	return toDuration(r, call.Argument(i), method, param)
}

// ArgCallback returns argument i as a function.
func ArgCallback(r *Realm, call goja.FunctionCall, i int, method, param string) goja.Callable {
	v := call.Argument(i)
	if fn, ok := goja.AssertFunction(v); ok {
		return fn
	}
	r.argErr(method, param, "a function", v)
	return nil
}

// ToString converts v (at path, "opts.name") like ArgString.
func ToString(r *Realm, v goja.Value, path string) string { return toString(r, v, "", path) }

// ToBool converts v like ArgBool.
func ToBool(r *Realm, v goja.Value, path string) bool { return toBool(r, v, "", path) }

// ToInt converts v like ArgInt.
func ToInt(r *Realm, v goja.Value, path string) int64 { return toInt(r, v, "", path) }

// ToFloat converts v like ArgFloat.
func ToFloat(r *Realm, v goja.Value, path string) float64 { return toFloat(r, v, "", path) }

// ToDuration converts v like ArgDuration.
func ToDuration(r *Realm, v goja.Value, path string) time.Duration {
	return toDuration(r, v, "", path)
}

// ToObject returns v, at path, as a plain object (not null, an array or a function).
func ToObject(r *Realm, v goja.Value, path string) *goja.Object { return toObject(r, v, "", path) }

// toSlice returns the elements of array v: NewBudget(r).Slice, for an array converted on
// its own. An array longer than Limits.MaxNodes throws before anything is read.
func toSlice(r *Realm, v goja.Value, path string) []goja.Value {
	return NewBudget(r).Slice(v, path)
}

func arrayLen(o *goja.Object) int64 {
	return o.Get("length").ToInteger()
}

func toString(r *Realm, v goja.Value, method, param string) string {
	gs, ok := v.(goja.String) // one assertion: this is on the path of every string argument
	if !ok {
		r.argErr(method, param, "a string", v)
	}
	// UTF-8 needs at least a byte per UTF-16 unit, so a string longer than the limit is
	// refused before Go copies it.
	if n := gs.Length(); n > r.loop.limits.MaxBytes {
		r.Throw(&ArgError{Method: method, Param: param, Want: "a string of at most " + strconv.Itoa(r.loop.limits.MaxBytes) + " bytes", Got: "at least " + strconv.Itoa(n) + " bytes"})
	}
	s := gs.String()
	if len(s) > r.loop.limits.MaxBytes {
		r.Throw(&ArgError{Method: method, Param: param, Want: "a string of at most " + strconv.Itoa(r.loop.limits.MaxBytes) + " bytes", Got: strconv.Itoa(len(s)) + " bytes"})
	}
	return s
}

func toBool(r *Realm, v goja.Value, method, param string) bool {
	if v != nil && v.ExportType() != nil && v.ExportType().Kind() == reflect.Bool && !isObject(v) {
		return v.ToBoolean()
	}
	r.argErr(method, param, "a boolean", v)
	return false
}

func isObject(v goja.Value) bool {
	_, ok := v.(*goja.Object)
	return ok
}

func toFloat(r *Realm, v goja.Value, method, param string) float64 {
	if !goja.IsNumber(v) {
		r.argErr(method, param, "a finite number", v)
	}
	f := v.ToFloat()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		r.argErr(method, param, "a finite number", v)
	}
	return f
}

func toInt(r *Realm, v goja.Value, method, param string) int64 {
	if !goja.IsNumber(v) {
		r.argErr(method, param, "an integer", v)
	}
	f := v.ToFloat()
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		r.argErr(method, param, "an integer", v)
	case f != math.Trunc(f):
		r.Throw(&ArgError{Method: method, Param: param, Want: "an integer", Got: strconv.FormatFloat(f, 'g', -1, 64)})
	case f > maxSafeInt || f < -maxSafeInt:
		r.Throw(&ArgError{Method: method, Param: param, Want: "an integer between -2^53 and 2^53", Got: strconv.FormatFloat(f, 'f', -1, 64)})
	}
	return int64(f)
}

func toDuration(r *Realm, v goja.Value, method, param string) time.Duration {
	if !goja.IsNumber(v) || goja.IsNaN(v) || goja.IsInfinity(v) {
		r.argErr(method, param, "a number of milliseconds", v)
	}
	ms := v.ToFloat()
	if ms < 0 || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		r.Throw(&ArgError{Method: method, Param: param, Want: "a number of milliseconds between 0 and 2^63 ns", Got: strconv.FormatFloat(ms, 'g', -1, 64)})
	}
	return time.Duration(ms * float64(time.Millisecond))
}

func toObject(r *Realm, v goja.Value, method, param string) *goja.Object {
	o, ok := v.(*goja.Object)
	if ok {
		if _, fn := goja.AssertFunction(o); !fn && o.ClassName() != "Array" {
			return o
		}
	}
	r.argErr(method, param, "an object", v)
	return nil
}
