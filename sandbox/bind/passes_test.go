package bind

import (
	"testing"

	"github.com/dop251/goja"
)

// TestPasses: what a serial or bail listener returns to pass is undefined, null or the
// primitive false, and nothing else — not a Boolean object, 0, an empty string or NaN,
// which convert by the result type.
func TestPasses(t *testing.T) {
	rt := goja.New()
	for src, want := range map[string]bool{
		"undefined":          true,
		"null":               true,
		"false":              true,
		"true":               false,
		"new Boolean(false)": false,
		"0":                  false,
		"''":                 false,
		"NaN":                false,
		"({})":               false,
		"[]":                 false,
		"'false'":            false,
	} {
		v, err := rt.RunString(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := Passes(v); got != want {
			t.Errorf("Passes(%s) = %v, want %v", src, got, want)
		}
	}
	if !Passes(nil) {
		t.Error("Passes(nil) = false: a missing value is no answer")
	}
}
