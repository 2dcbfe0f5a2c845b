package sandbox

import (
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// intrinsics are constructors captured when first needed.
type intrinsics struct {
	uint8Array goja.Constructor
}

func (r *Realm) newUint8Array(b []byte) goja.Value {
	if r.intrinsics == nil {
		ctor, _ := goja.AssertConstructor(r.rt.Get("Uint8Array"))
		r.intrinsics = &intrinsics{uint8Array: ctor}
	}
	if r.intrinsics.uint8Array == nil {
		r.throwf("Uint8Array is not available")
	}
	o, err := r.intrinsics.uint8Array(nil, r.rt.ToValue(r.rt.NewArrayBuffer(b)))
	if err != nil {
		r.throw(err)
	}
	return o
}

// textEncoder builds the TextEncoder constructor: UTF-8 only, as on the web.
func (r *Realm) textEncoder() goja.Value {
	rt := r.rt
	ctor := rt.ToValue(func(call goja.ConstructorCall) *goja.Object {
		_ = call.This.DefineDataProperty("encoding", rt.ToValue("utf-8"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		return nil
	}).(*goja.Object)
	proto := ctor.Get("prototype").(*goja.Object)
	_ = proto.Set("encode", func(call goja.FunctionCall) goja.Value {
		s := ""
		if a := call.Argument(0); !goja.IsUndefined(a) {
			s = toString(r, a, "TextEncoder.encode", "input")
		}
		return r.newUint8Array([]byte(s))
	})
	return ctor
}

// textDecoder builds the TextDecoder constructor: UTF-8 only, with the fatal and ignoreBOM
// options.
func (r *Realm) textDecoder() goja.Value {
	rt := r.rt
	ctor := rt.ToValue(func(call goja.ConstructorCall) *goja.Object {
		label := "utf-8"
		if a := call.Argument(0); !goja.IsUndefined(a) {
			label = strings.ToLower(strings.TrimSpace(a.String()))
		}
		if label != "utf-8" && label != "utf8" && label != "unicode-1-1-utf-8" {
			panic(r.rangeError("TextDecoder: encoding %q is not supported; only utf-8 is", label))
		}
		fatal, ignoreBOM := false, false
		if o, ok := call.Argument(1).(*goja.Object); ok {
			fatal = o.Get("fatal") != nil && o.Get("fatal").ToBoolean()
			ignoreBOM = o.Get("ignoreBOM") != nil && o.Get("ignoreBOM").ToBoolean()
		}
		t := call.This
		_ = t.DefineDataProperty("encoding", rt.ToValue("utf-8"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		_ = t.DefineDataProperty("fatal", rt.ToValue(fatal), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		_ = t.DefineDataProperty("ignoreBOM", rt.ToValue(ignoreBOM), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		return nil
	}).(*goja.Object)
	proto := ctor.Get("prototype").(*goja.Object)
	_ = proto.Set("decode", func(call goja.FunctionCall) goja.Value {
		this := call.This.(*goja.Object)
		b := r.bytesOf(call.Argument(0), "TextDecoder.decode", "input")
		if !this.Get("ignoreBOM").ToBoolean() {
			b = trimBOM(b)
		}
		if !utf8.Valid(b) {
			if this.Get("fatal").ToBoolean() {
				r.throw(&conv.ArgError{Method: "TextDecoder.decode", Param: "input", Want: "valid UTF-8 (fatal: true)", Got: "invalid bytes"})
			}
			return rt.ToValue(strings.ToValidUTF8(string(b), "\uFFFD"))
		}
		return rt.ToValue(string(b))
	})
	return ctor
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// bytesOf returns the bytes of an ArrayBuffer, a typed array or a DataView (undefined: none).
func (r *Realm) bytesOf(v goja.Value, method, param string) []byte {
	if goja.IsUndefined(v) {
		return nil
	}
	o, ok := v.(*goja.Object)
	if ok {
		if ab, ok := o.Export().(goja.ArrayBuffer); ok {
			return ab.Bytes()
		}
		if bv, ok := o.Get("buffer").(*goja.Object); ok {
			if ab, ok := bv.Export().(goja.ArrayBuffer); ok {
				data := ab.Bytes()
				off, n := o.Get("byteOffset").ToInteger(), o.Get("byteLength").ToInteger()
				if off >= 0 && n >= 0 && off+n <= int64(len(data)) {
					return data[off : off+n]
				}
			}
		}
	}
	conv.Throw(thrower{r}, method, param, "an ArrayBuffer, a typed array or a DataView", v)
	return nil
}

func (r *Realm) rangeError(format string, args ...any) goja.Value {
	msg := fmt.Sprintf(format, args...)
	if ctor, ok := goja.AssertConstructor(r.rt.Get("RangeError")); ok {
		if o, err := ctor(nil, r.rt.ToValue(msg)); err == nil {
			return o
		}
	}
	return r.rt.NewTypeError(msg)
}
