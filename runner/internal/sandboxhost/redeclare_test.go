package sandboxhost

import (
	"context"
	"strings"
	"testing"
)

// A name declared twice in a host half's own scope, where one of the two is a let, const
// or class, is refused at define time with the compiler's text; the same name in a
// nested block or function is not a redeclaration.
func TestCheckRefusesRedeclaredNames(t *testing.T) {
	h := New(nil, 256)
	t.Cleanup(func() {
		if err := h.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	const refused = "code.host: mount code failed to parse at line 1"
	for _, c := range []struct {
		code    string
		refused bool
	}{
		{"let a = 1; let a = 2; return () => {}", true},
		{"const a = 1; let a = 2; return () => {}", true},
		{"let a; var a; return () => {}", true},
		{"if (true) { var a } let a; return () => {}", true},
		{"class A {} let A; return () => {}", true},
		{"function f() {} let f; return () => {}", true},
		{"let a; { let a } return () => {}", false},
		{"let a; function g() { let a } return () => {}", false},
		{"var a; var a; return () => {}", false},
	} {
		err := h.Check("code.host", c.code)
		if got := err != nil && strings.HasPrefix(err.Error(), refused) && strings.Contains(err.Error(), "has already been declared"); got != c.refused {
			t.Errorf("Check(%q) = %v; want refused %v", c.code, err, c.refused)
		}
	}
}
