package bind

import (
	"reflect"
	"strconv"
	"time"

	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/cordiskit/cordiskit/sandbox/internal/link"
	"github.com/dop251/goja"
)

// realms are the operations of sandbox's realms that only this package uses.
var realms = link.Get[sandbox.Realm]()

// A thrower is how package conv throws into a realm: a value of one pointer, so making one
// does not allocate.
type thrower struct{ r *sandbox.Realm }

func (t thrower) Throw(err error) { realms.Throw(t.r, err) }

// Throw raises err in JavaScript: a TypeError when err is (or wraps) the error of a value
// of the wrong type (an Arg, a From or a Conv refusing it), an Error otherwise, which
// remembers err so that a *sandbox.JSError for it unwraps to err. It does not return.
// Lock held.
func Throw(r *sandbox.Realm, err error) { realms.Throw(r, err) }

// A From converts v, a value JavaScript gave (a listener's result, an argument inside a
// structure), to a T, throwing a TypeError that names path when it does not fit. It is
// one conversion: a From that needs a [Budget] makes its own (see [Budgeted]).
// [ToString], [ToDuration], [ToObject] and their siblings are Froms.
type From[T any] func(r *sandbox.Realm, v goja.Value, path string) T

// Budgeted makes a From of a conversion that takes its budget, giving each conversion a
// fresh one: the budget bounds everything one value produces.
func Budgeted[T any](from func(r *sandbox.Realm, b *Budget, v goja.Value, path string) T) From[T] {
	return func(r *sandbox.Realm, v goja.Value, path string) T { return from(r, NewBudget(r), v, path) }
}

// ArgFrom makes an Arg of a From: the argument converted with path "method: parameter
// param".
func ArgFrom[T any](from From[T]) Arg[T] {
	return func(r *sandbox.Realm, v goja.Value, method, param string) T {
		return from(r, v, method+": parameter "+param)
	}
}

// integer is the Go integer types, named ones too.
type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// String reads a string argument as the named string type T. Lone UTF-16 surrogates become U+FFFD; a string longer than Limits.MaxBytes, or any other
// type, throws a TypeError such as "fs.readFile: parameter path: expected a string, got
// number".
func String[T ~string](r *sandbox.Realm, v goja.Value, method, param string) T {
	return T(conv.String(thrower{r}, realms.MaxBytes(r), v, method, param))
}

// Bool reads a boolean argument as the named boolean type T (no truthiness: it must be
// true or false).
func Bool[T ~bool](r *sandbox.Realm, v goja.Value, method, param string) T {
	return T(conv.Bool(thrower{r}, v, method, param))
}

// Float reads a finite number argument as the floating-point type T.
func Float[T ~float32 | ~float64](r *sandbox.Realm, v goja.Value, method, param string) T {
	return T(conv.Float(thrower{r}, v, method, param))
}

// Int reads an integer argument — a number with no fractional part within ±2^53 — as the
// integer type T, checked to fit (see checkInt).
func Int[T integer](r *sandbox.Realm, v goja.Value, method, param string) T {
	return checkInt[T](r, conv.Int(thrower{r}, v, method, param), method, param)
}

// Duration reads an argument, a non-negative number of milliseconds, as a time.Duration.
func Duration(r *sandbox.Realm, v goja.Value, method, param string) time.Duration {
	return conv.Duration(thrower{r}, v, method, param)
}

// Callback reads a function argument.
func Callback(r *sandbox.Realm, v goja.Value, method, param string) goja.Callable {
	return conv.Callback(thrower{r}, v, method, param)
}

// ToString converts v, at path ("opts.name"), like [String], to the named string type T.
func ToString[T ~string](r *sandbox.Realm, v goja.Value, path string) T {
	return T(conv.String(thrower{r}, realms.MaxBytes(r), v, "", path))
}

// ToBool converts v like [Bool], to the named boolean type T.
func ToBool[T ~bool](r *sandbox.Realm, v goja.Value, path string) T {
	return T(conv.Bool(thrower{r}, v, "", path))
}

// ToFloat converts v like [Float], to the floating-point type T.
func ToFloat[T ~float32 | ~float64](r *sandbox.Realm, v goja.Value, path string) T {
	return T(conv.Float(thrower{r}, v, "", path))
}

// ToInt converts v like [Int], to the integer type T, checked to fit.
func ToInt[T integer](r *sandbox.Realm, v goja.Value, path string) T {
	return checkInt[T](r, conv.Int(thrower{r}, v, "", path), "", path)
}

// ToDuration converts v like [Duration].
func ToDuration(r *sandbox.Realm, v goja.Value, path string) time.Duration {
	return conv.Duration(thrower{r}, v, "", path)
}

// ToObject returns v, at path, as a plain object (not null, an array or a function).
func ToObject(r *sandbox.Realm, v goja.Value, path string) *goja.Object {
	return conv.Object(thrower{r}, v, "", path)
}

// Nothing is the From of struct{}: whatever JavaScript gave is no data.
func Nothing(*sandbox.Realm, goja.Value, string) struct{} { return struct{}{} }

// intRange is the range of a Go integer kind into which an integer read from JavaScript
// (an int64 within ±2^53) does not always fit, as the bounds the check states. int and
// int64 need no check on the 64-bit platforms the façade runs on; the check is still
// portable, since it compares the converted value with the original.
var intRange = map[reflect.Kind]string{
	reflect.Int8:    "between -128 and 127",
	reflect.Int16:   "between -32768 and 32767",
	reflect.Int32:   "between -2147483648 and 2147483647",
	reflect.Int:     "within the range of int",
	reflect.Uint8:   "between 0 and 255",
	reflect.Uint16:  "between 0 and 65535",
	reflect.Uint32:  "between 0 and 4294967295",
	reflect.Uint:    "between 0 and 2^53",
	reflect.Uint64:  "between 0 and 2^53",
	reflect.Uintptr: "between 0 and 2^53",
}

// checkInt converts x, an integer read from JavaScript, to T. It throws a TypeError
// naming method and param when x does not fit, rather than letting the conversion wrap.
func checkInt[T integer](r *sandbox.Realm, x int64, method, param string) T {
	y := T(x)
	fits := int64(y) == x
	if signed := ^T(0) < 0; !signed {
		fits = x >= 0 && uint64(y) == uint64(x)
	}
	if !fits {
		realms.Throw(r, &conv.ArgError{Method: method, Param: param, Want: "an integer " + intRange[reflect.TypeFor[T]().Kind()], Got: strconv.FormatInt(x, 10)})
	}
	return y
}

// basic is the Go types goja converts to a JavaScript primitive as they are.
type basic interface {
	string | bool | int | int8 | int16 | int32 | int64 | uint | uint8 | uint16 | uint32 | uint64 | uintptr | float32 | float64
}

// Value is the Result of a basic type: the JavaScript primitive.
func Value[T basic](r *sandbox.Realm, x T) goja.Value { return realms.Runtime(r).ToValue(x) }

// Millis is the Result of a time.Duration: a number of milliseconds, as
// [Duration] reads them.
func Millis(r *sandbox.Realm, x time.Duration) goja.Value {
	return realms.Runtime(r).ToValue(float64(x) / float64(time.Millisecond))
}

// Data is the Result of a type that crosses as plain data through JSON (time.Time).
func Data[T any](r *sandbox.Realm, x T) goja.Value { return FromAny(r, x) }

// FromAny converts plain Go data into a fresh JavaScript value: nil, booleans, strings,
// numbers, json.RawMessage, and slices, arrays and string-keyed maps of those are
// converted directly; anything else goes through encoding/json (so a struct becomes a
// plain object of its exported fields and no Go method is ever reachable). An integer
// beyond ±2^53, which a JavaScript number cannot hold exactly, throws, as do values
// encoding/json rejects; the copy is bounded like a [Budget]'s. Lock held.
func FromAny(r *sandbox.Realm, v any) goja.Value { return realms.FromAny(r, v) }

// ErrorValue is the Result of an error: a plain object {name: "Error", message}, or
// null.
func ErrorValue(r *sandbox.Realm, err error) goja.Value {
	if err == nil {
		return goja.Null()
	}
	o := realms.Runtime(r).NewObject()
	_ = o.Set("name", "Error")
	_ = o.Set("message", err.Error())
	return o
}

// Disposer returns the Result of a func() a method returns: a JavaScript function that
// calls it off the lock (a Go panic in it names what), or null.
func Disposer(what string) Result[func()] {
	return func(r *sandbox.Realm, fn func()) goja.Value { return DisposerValue(r, what, fn) }
}

// DisposerValue is the JavaScript function that calls fn off the lock, or null.
func DisposerValue(r *sandbox.Realm, what string, fn func()) goja.Value {
	if fn == nil {
		return goja.Null()
	}
	return r.Func(what, func(goja.FunctionCall) goja.Value {
		r.Unlocked(fn)
		return goja.Undefined()
	})
}
