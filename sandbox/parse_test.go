package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// CompileParsed compiles what Parse parsed as Compile compiles the source: under the
// compile's id (its stack traces and its compile errors name it, not the parse's), once.
func TestCompileParsed(t *testing.T) {
	l := New(nil)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	const code = "const f = () => { throw new Error('boom') }\nf()\nreturn () => {}"
	p, err := l.Parse("code.host", code)
	if err != nil {
		t.Fatal(err)
	}
	if p.Code() != code || len(p.Func().Body.List) != 3 {
		t.Fatalf("Parsed: code %q, %d top-level statements; want the code and 3", p.Code(), len(p.Func().Body.List))
	}
	prog, err := l.CompileParsed("dyn-7", p)
	if err != nil {
		t.Fatal(err)
	}
	_, runErr := l.Run(context.Background(), prog)
	want, _ := l.Compile("dyn-7", code)
	_, wantErr := l.Run(context.Background(), want)
	var got, exp *JSError
	if !errors.As(runErr, &got) || !errors.As(wantErr, &exp) || got.Error() != exp.Error() || got.Stack != exp.Stack || !strings.Contains(got.Stack, "cordis-mount-dyn-7.js:1:") {
		t.Fatalf("run of the parsed program: %v\nwant Compile's: %v, with the stack naming cordis-mount-dyn-7.js", runErr, wantErr)
	}
	if p.Func() != nil {
		t.Error("Func after CompileParsed is not nil")
	}
	if _, err := l.CompileParsed("dyn-8", p); err == nil || !strings.Contains(err.Error(), "compiled already") {
		t.Fatalf("second CompileParsed = %v, want it refused", err)
	}

	// What only the compiler finds comes from the compile, under its id, as from Compile.
	const redeclared = "let a = 1\nlet a = 2\nreturn () => {}"
	p, err = l.Parse("code.host", redeclared)
	if err != nil {
		t.Fatalf("Parse(%q) = %v; a redeclaration is the compiler's to find", redeclared, err)
	}
	_, err = l.CompileParsed("dyn-9", p)
	_, cerr := l.Compile("dyn-9", redeclared)
	if err == nil || cerr == nil || err.Error() != cerr.Error() || !strings.HasPrefix(err.Error(), "dyn-9: mount code failed to parse at line 2") {
		t.Fatalf("CompileParsed = %v\nwant Compile's %v", err, cerr)
	}
}
