package sandboxhost

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/sandbox"
)

// A host half that declares `harness` anywhere the half's own scope holds it is refused at
// define time; a name that only reads, assigns or nests it in an inner scope is not.
func TestSandboxHostCheckHarnessDeclarations(t *testing.T) {
	h, _ := newTestHost(t)
	const refused = "code.host declares the name `harness`"
	tests := []struct {
		code     string
		declares bool
	}{
		{"var harness = 1; return () => {}", true},
		{"let harness = 1; return () => {}", true},
		{"const harness = 1; return () => {}", true},
		{"function harness() {} return () => {}", true},
		{"class harness {} return () => {}", true},
		{"if (true) { var harness = 1 } return () => {}", true},
		{"for (var harness of []) {} return () => {}", true},
		{"for (var harness in {}) {} return () => {}", true},
		{"for (var i = 0, harness = 1; i < 1; i++) {} return () => {}", true},
		{"try {} finally { var harness } return () => {}", true},
		{"switch (1) { case 1: var harness } return () => {}", true},
		{"const { harness } = { harness: 1 }; return () => {}", true},
		{"const { harness = 1 } = {}; return () => {}", true},
		{"const { a: harness } = {}; return () => {}", true},
		{"const { a: { b: [harness] } } = { a: { b: [1] } }; return () => {}", true},
		{"const [a, , harness] = []; return () => {}", true},
		{"const [a = 1, ...harness] = []; return () => {}", true},
		{"const { a, ...harness } = {}; return () => {}", true},
		{"let [{ harness: h = harness }] = [{}]; return () => {}", false},
		{"const { harness: h } = { harness: 1 }; return () => {}", false},
		{"{ let harness = 1 } return () => {}", false},
		{"function f(harness) { var harness2 = harness } return () => {}", false},
		{"const f = () => { var harness = 1 }; return () => {}", false},
		{"try {} catch (harness) {} return () => {}", false},
		{"class C { harness() {} } return () => {}", false},
		{"const o = { harness: 1 }; o.harness = 2; return () => {}", false},
		{"harness.handle('a', () => 1); return () => {}", false},
	}
	for _, tt := range tests {
		err := h.Check("code.host", tt.code)
		if got := err != nil && strings.Contains(err.Error(), refused); got != tt.declares || err != nil && !tt.declares {
			t.Errorf("Check(%q) = %v; want refused: %v", tt.code, err, tt.declares)
		}
		if err := h.Check("code.client", tt.code); err != nil {
			t.Errorf("Check(code.client, %q) = %v; the client half is given no harness", tt.code, err)
		}
	}
}

// The define check reports syntax where Compile would, and runs the sandbox's size and
// nesting bounds first, so source nested too deep for the parser is refused with a
// position instead of reaching it.
func TestSandboxHostCheckSyntaxAsCompile(t *testing.T) {
	h, _ := newTestHost(t)
	deep := "return " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, code := range []string{
		"return (ctx => {",
		"const x = ;\nreturn () => {}",
		"return () => {} })(); (async () => {",
		"break; return () => {}",
		deep,
		strings.Repeat("x", h.Sandbox().Limits().MaxBytes+1),
	} {
		err := h.Check("code.host", code)
		_, cerr := h.Sandbox().Compile("code.host", code)
		if err == nil || cerr == nil || err.Error() != cerr.Error() {
			t.Errorf("Check(%.40q) = %v\nwant Compile's error %v", code, err, cerr)
		}
		var se *sandbox.SyntaxError
		if errors.As(cerr, &se) != errors.As(err, &se) {
			t.Errorf("Check(%.40q) error type %T, Compile's %T", code, err, cerr)
		}
	}
}

// A define's parsed host half is handed to the run of the same code, which compiles it as
// if it had parsed the code itself: stack traces and compile errors name the Plugin, and
// another code, or the same code run again, compiles from source.
func TestSandboxHostCheckHandsOffItsParse(t *testing.T) {
	h, root := newTestHost(t)
	const throws = "const f = () => { throw new Error('boom') }\nf()\nreturn () => {}"
	const redeclared = "{\nlet a = 1\nlet a = 2\n}\nreturn () => {}" // in a block: the define check leaves it to the compiler
	for _, tt := range []struct {
		name, checked, started, want string
		taken                        bool
	}{
		{"handed off", throws, throws, "cordis-mount-clock-1.js:1:", true},
		{"compile error", redeclared, redeclared, "clock-1: mount code failed to parse at line 3, column 5: Identifier 'a' has already been declared", true},
		{"other code", "return () => {}", throws, "cordis-mount-clock-1.js:1:", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := h.Check("code.host", tt.checked); err != nil {
				t.Fatal(err)
			}
			for i := range 2 { // the second start has no parse to take
				if i == 1 && tt.taken == (h.checked != nil) {
					t.Fatalf("after a start of %s code the kept parse is %v", tt.name, h.checked)
				}
				run, err := startHost(t, h, root, tt.started)
				if err == nil {
					run.Stop(context.Background())
					t.Fatal("Start succeeded")
				}
				text := err.Error()
				if js := (*sandbox.JSError)(nil); errors.As(err, &js) {
					text += "\n" + js.Stack
				}
				if !strings.Contains(text, tt.want) {
					t.Fatalf("Start: %s\nwant it to contain %q", text, tt.want)
				}
			}
		})
	}
}
