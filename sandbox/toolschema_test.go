package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/internal/childtest"
)

// TestToolSchemaRecursion registers schemas that refer to themselves. Before the bound, a
// $ref cycle on one value overflowed the validator's stack, a fatal error, so the test
// runs in a child process; and validating deeply nested arguments against a recursive
// schema took the validator hours.
func TestToolSchemaRecursion(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newHost(t, nil)
	m, f := h.expose("")
	defer h.unmount(m, f)
	register := func(name, params string) string {
		return h.eval(m, `try { ctx.tools.register({ name: '`+name+`', description: 'd', parameters: `+params+`, execute: (a) => 'ok' }); '' } catch (e) { e.message }`)
	}
	for _, tc := range []struct{ params, want string }{
		{`{ type: 'object', $ref: '#' }`, `ctx.tools.register(\"x\"): tool.parameters.$ref: \"#\" refers to the schema itself and never reaches a property or an item`},
		{`{ type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { anyOf: [{ $ref: '#/$defs/b' }] }, b: { not: { $ref: '#/$defs/a' } } } }`, `tool.parameters.$defs.a: the cycle tool.parameters.$defs.a → tool.parameters.$defs.a.anyOf[0] → tool.parameters.$defs.b → tool.parameters.$defs.b.not → tool.parameters.$defs.a never reaches`},
		{`{ type: 'object', properties: { s: { $ref: '#/$defs/missing' } } }`, `tool.parameters.properties.s.$ref: \"#/$defs/missing\" points at no schema`},
	} {
		if got := register("x", tc.params); !strings.Contains(got, tc.want) {
			t.Errorf("register(%s)\n got %s\nwant it to contain %s", tc.params, got, tc.want)
		}
	}
	if _, err := h.call("x", `{}`); err == nil {
		t.Error("a refused tool was registered")
	}

	// A tree whose every level goes through a chain of 12 $refs: within the bounds, but
	// 4900 levels of arguments nest 70,000 validations (280 MiB of stack), and a bad leaf
	// makes the validator build its error at a cost quadratic in the nesting (measured
	// before the bound: 400 levels allocate 0.9 GB in 2.5 s).
	var defs []string
	for i := range 12 {
		defs = append(defs, fmt.Sprintf(`l%d: { $ref: '#/$defs/l%d' }`, i, i+1))
	}
	defs = append(defs, `l12: { $ref: '#/$defs/node' }`, `node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/l0' } } }, additionalProperties: false }`)
	if got := register("tree", `{ type: 'object', properties: { root: { $ref: '#/$defs/node' } }, $defs: { `+strings.Join(defs, ", ")+` } }`); got != `""` {
		t.Fatalf("register tree: %s", got)
	}
	for _, tc := range []struct {
		depth      int
		leaf, want string
	}{
		{10, ``, `"ok"`},
		{10, `{"bad":1}`, `error: tool "tree": invalid arguments: validating root: validating /properties/root: `},
		{4900, `{"bad":1}`, `error: tool "tree": invalid arguments: the arguments are nested more than 64 levels deep, and the tool's schema is recursive`},
	} {
		args := `{"root":` + strings.Repeat(`{"kids":[`, tc.depth) + tc.leaf + strings.Repeat(`]}`, tc.depth) + `}`
		out, err := h.call("tree", args)
		if err != nil {
			out = "error: " + err.Error()
		}
		if !strings.HasPrefix(out, tc.want) {
			t.Errorf("tree nested %d deep: %s\nwant %s…", tc.depth, out, tc.want)
		}
	}
}
