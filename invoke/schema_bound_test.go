package invoke_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/google/jsonschema-go/jsonschema"
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

// FuzzCheckedSchemaValidates cross-checks kit.CheckToolSchema with the validator it
// protects: whatever schema the check accepts, validating arguments within its ArgsLimit
// returns (a $ref cycle it missed would overflow the stack and fail the fuzz target).
func FuzzCheckedSchemaValidates(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"type":"object","properties":{"next":{"$ref":"#"}}}`, `{"next":{"next":{"next":{}}}}`},
		{`{"type":"object","properties":{"left":{"$ref":"#"},"right":{"$ref":"#"}}}`, `{"left":{"right":{}},"right":{}}`},
		{`{"type":"object","properties":{"a":{"$ref":"#"}},"additionalProperties":{"$ref":"#"}}`, `{"a":{"b":{"a":{}}}}`},
		{`{"type":"array","prefixItems":[{"$ref":"#"}],"items":{"$ref":"#"}}`, `[[[],[]],[[[]]]]`},
		{`{"$defs":{"n":{"oneOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/n"}}]}},"$ref":"#/$defs/n"}`, `[["a",["b"]],"c"]`},
		{`{"$anchor":"t","type":"object","properties":{"x":{"$ref":"#t"}}}`, `{"x":{"x":{}}}`},
		{`{"type":"object","$ref":"#"}`, `{}`},
		{`{"allOf":[{"$ref":"#/allOf/1"},{"not":{"$ref":"#/allOf/0"}}]}`, `{}`},
		{`{"dependentSchemas":{"a":{"$ref":"#"}}}`, `{"a":1}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		lim, err := kit.CheckToolSchema(json.RawMessage(schema), "s")
		if err != nil {
			return
		}
		var s jsonschema.Schema
		if json.Unmarshal([]byte(schema), &s) != nil {
			return
		}
		rs, err := s.Resolve(nil)
		if err != nil || lim.Check([]byte(args)) != nil {
			return
		}
		var v any
		if json.Unmarshal([]byte(args), &v) != nil {
			return
		}
		_ = rs.Validate(v)
	})
}
