package jsjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// testRealm is a bare runtime with small limits.
type testRealm struct{ rt *goja.Runtime }

func (t testRealm) Runtime() *goja.Runtime           { return t.rt }
func (t testRealm) Limits() (maxBytes, maxDepth int) { return 1 << 16, 8 }
func (t testRealm) Protos() (object, array *goja.Object) {
	return t.rt.NewObject().Prototype(), t.rt.NewArray().Prototype()
}
func (t testRealm) Try(f func()) error {
	if ex := t.rt.Try(f); ex != nil {
		return ex
	}
	return nil
}

type panicThrower struct{}

func (panicThrower) Throw(err error) { panic(err) }

func budget(nodes int) *conv.Budget {
	b := conv.NewBudget(panicThrower{}, nodes, 1<<16, func(l conv.Limit) error {
		return fmt.Errorf("%s: more than %d %s", l.Path, l.Limit, l.What)
	})
	return &b
}

// decoded is a JSON text as Go data, for comparing documents whatever their spelling.
func decoded(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

func TestAppendRefuses(t *testing.T) {
	r := testRealm{goja.New()}
	for _, tt := range []struct{ src, want string }{
		{`({a: [1, () => 1]})`, "result.a[1]: expected JSON data, got function"},
		{`({a: NaN})`, "result.a: expected JSON data (a finite number), got NaN"},
		{`new Map()`, "result: expected JSON data (a plain object or array), got Map"},
		{`({"odd key": [undefined]})`, `result["odd key"][0]: expected JSON data, got undefined`},
		{`[[[[[[[[[[1]]]]]]]]]]`, "expected JSON data nested at most 8 levels deep"},
		{`Array(100).fill(0)`, "result: more than 50 elements"},
	} {
		v, err := r.rt.RunString(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Append(r, budget(50), nil, v, NewPath("result"), 0)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.src, err, tt.want)
		}
	}
}

func TestFromAny(t *testing.T) {
	r := testRealm{goja.New()}
	for _, tt := range []struct {
		in   any
		want string
	}{
		{map[string]any{"z": 1, "a": []any{"x", 2.5, false, nil}}, `{"a":["x",2.5,false,null],"z":1}`},
		{struct {
			Name string `json:"name"`
		}{"n"}, `{"name":"n"}`},
		{json.RawMessage(`[1]`), `[1]`},
		{int64(1) << 60, "outside ±2^53"},
		{make(chan int), "converting chan int to JavaScript"},
	} {
		got := ""
		v, err := FromAny(r, budget(100), tt.in, 0)
		if err != nil {
			got = err.Error()
		} else {
			b, err := Append(r, budget(100), nil, v, NewPath(""), 0)
			if err != nil {
				t.Fatal(err)
			}
			got = string(b)
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("FromAny(%#v): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestAppendNumber(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e21, 1e-7, 123456789012, 0.1 + 0.2, 5e-324, math.MaxFloat64} {
		r := goja.New()
		want := r.ToValue(f).String() // JavaScript's Number to string, which JSON.stringify uses
		if got := string(AppendNumber(nil, f)); got != want {
			t.Errorf("AppendNumber(%v) = %s, want %s", f, got, want)
		}
	}
}

// FuzzAppendString: any Go string becomes a JSON string that encoding/json reads back as
// the same text, invalid UTF-8 replaced by U+FFFD.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\n\t\r", "é€😀", "\xff\xfe", "\u2028</script>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: %s is not a JSON string: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); !utf8.ValidString(s) {
			// Each invalid byte becomes one U+FFFD; ToValidUTF8 merges runs, so compare
			// only what is valid.
			if strings.ReplaceAll(got, "\uFFFD", "") != strings.ReplaceAll(want, "\uFFFD", "") {
				t.Fatalf("%q: read back %q", s, got)
			}
		} else if got != s {
			t.Fatalf("%q: read back %q", s, got)
		}
	})
}

// FuzzDecodeAppend: a JSON document decoded into JavaScript and written back is the same
// data; one that is not JSON, or past the limits, is an error and never a panic.
func FuzzDecodeAppend(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"],"c":{"d":1.5}}`, `{"__proto__":{"p":1}}`, `9007199254740993`, `[[[[[[[[[[]]]]]]]]]]`, `1 2`, `{"a":`, `"\ud800"`, `-0`, `1e400`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := testRealm{goja.New()}
		v, err := Decode(r, budget(1000), []byte(raw))
		if err != nil || goja.IsUndefined(v) {
			return
		}
		b, err := Append(r, budget(1000), nil, v, NewPath(""), 0)
		if err != nil {
			var ae *conv.ArgError
			if errors.As(err, &ae) && strings.Contains(ae.Want, "finite") { // 1e400 is Infinity, as JSON.parse makes it
				return
			}
			t.Fatalf("%s: decoded, then not JSON: %v", raw, err)
		}
		var want any
		if json.Unmarshal([]byte(raw), &want) != nil {
			t.Fatalf("%s: decoded what encoding/json refuses", raw)
		}
		if diff := cmp.Diff(want, decoded(t, b)); diff != "" {
			t.Fatalf("%s → %s (-want +got):\n%s", raw, b, diff)
		}
	})
}
