package invoke_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/invoke"
)

// TestInvokeRecursiveSchema validates arguments against a recursive schema whose every
// level goes through a chain of 12 $refs. Arguments 4900 levels deep with a bad leaf nest
// 70,000 validations (280 MiB of stack), and the validator builds its error at a cost
// quadratic in the nesting (before the bound, 400 levels allocated 0.9 GB in 2.5 s), so
// the test runs in a child process. Now they are refused before validation; shallow ones
// are validated.
func TestInvokeRecursiveSchema(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	root := newRuntime(t)
	var defs []string
	for i := range 12 {
		defs = append(defs, fmt.Sprintf(`"l%d":{"$ref":"#/$defs/l%d"}`, i, i+1))
	}
	defs = append(defs, `"l12":{"$ref":"#/$defs/node"}`, `"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/l0"}}},"additionalProperties":false}`)
	schema := `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	mount(t, root, "trees", rawTool("tree", schema, "", func(map[string]any) (any, error) { return "ok", nil }))
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		t.Fatal(err)
	}
	defer inv.Close(context.Background())
	nested := func(depth int, leaf string) string {
		return `{"root":` + strings.Repeat(`{"kids":[`, depth) + leaf + strings.Repeat(`]}`, depth) + `}`
	}
	if out, err := inv.Invoke(context.Background(), "tree", []byte(nested(20, ""))); err != nil || string(out) != `"ok"` {
		t.Errorf("20 levels: %s, %v", out, err)
	}
	_, err = inv.Invoke(context.Background(), "tree", []byte(nested(20, `{"bad":1}`)))
	if !errors.Is(err, invoke.ErrInvalidArguments) || !strings.Contains(err.Error(), "unexpected additional properties") {
		t.Errorf("20 levels with a bad leaf: %v, want it validated", err)
	}
	_, err = inv.Invoke(context.Background(), "tree", []byte(nested(4900, `{"bad":1}`)))
	if !errors.Is(err, invoke.ErrInvalidArguments) || !strings.Contains(err.Error(), "nested more than 64 levels deep") {
		t.Errorf("4900 levels: %v, want an argument error naming the depth limit", err)
	}
}

// TestRegisterRefusesUnboundedSchemas checks the registry check an attached Invoker adds:
// a schema the validator could not walk with bounded work is refused when it is
// registered, naming the part of the schema.
func TestRegisterRefusesUnboundedSchemas(t *testing.T) {
	root := newRuntime(t)
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		t.Fatal(err)
	}
	defer inv.Close(context.Background())
	tools := inv.Registry()
	ok := func(map[string]any) (any, error) { return "ok", nil }
	for _, tc := range []struct {
		name, input, output string
		want                string // a substring of the error; "" to accept
	}{
		{"input refers to itself", `{"type":"object","$ref":"#"}`, "", `inputSchema.$ref: "#" refers to the schema itself`},
		{"output refers to itself", "", `{"allOf":[{"$ref":"#"}]}`, "outputSchema: the cycle"},
		{"input names no JSON type", `{"type":"object","properties":{"n":{"type":"int"}}}`, "", `inputSchema.properties.n.type must be one of`},
		{"tree", `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unregister, err := tools.Register(root, rawTool("t", tc.input, tc.output, ok))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Register: %v", err)
				}
				unregister()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Register = %v, want an error containing %q", err, tc.want)
			}
			if tools.Has("t") {
				t.Error("the refused tool is registered")
			}
		})
	}
}
