package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cordiskit/cordiskit/internal/schema"
)

func TestCompileRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		object    bool
		want      string
	}{
		{"empty", ``, false, `args is missing; give a JSON Schema object`},
		{"not JSON", `{"type":`, false, `args: not JSON`},
		{"not a schema", `5`, false, `args must be a schema (an object or a boolean), got a number`},
		{"object required", `true`, true, `args must be a JSON Schema object such as {type: 'object'`},
		{"object type required", `{"type":"array"}`, true, `args.type must be "object"`},
		{"unknown type", `{"properties":{"n":{"type":"int"}}}`, false, `args.properties.n.type must be one of string, number, integer, boolean, null, object, array; got "int"`},
		{"type list", `{"properties":{"a b":{"items":{"type":["string",5]}}}}`, false, `args.properties["a b"].items.type[1] must be one of string, number, integer, boolean, null, object, array; got 5`},
		{"draft-07 tuple items", `{"items":[{"type":"nope"}]}`, false, `args.items[0].type must be one of`},
		{"empty anyOf", `{"anyOf":[]}`, false, `args.anyOf must be a non-empty array of schemas, got an array`},
		{"properties not an object", `{"properties":[]}`, false, `args.properties must be an object of schemas, got an array`},
		{"bad pattern", `{"pattern":"("}`, false, `args.pattern "(" is not a valid pattern`},
		{"bad pattern property", `{"patternProperties":{"(":{}}}`, false, `args.patternProperties: "(" is not a valid pattern`},
		{"required", `{"required":[1]}`, false, `args.required[0] must be a property name (a string), got a number`},
		{"negative count", `{"maxItems":-1}`, false, `args.maxItems must be a non-negative integer, got -1`},
		{"number", `{"minimum":"1"}`, false, `args.minimum must be a number, got a string`},
		{"empty enum", `{"enum":[]}`, false, `args.enum must be a non-empty array, got an array`},
		{"remote ref", `{"$ref":"http://example.com/s.json"}`, false, `args.$ref must point inside the schema ("#/$defs/…"); remote references are not loaded`},
		{"unbounded", `{"type":"object","$ref":"#"}`, false, `args.$ref: "#" refers to the schema itself`},
		{"nested too deep", strings.Repeat(`{"items":`, 600) + `{}` + strings.Repeat(`}`, 600), false, `is nested more than 512 levels deep; move shared parts into $defs`},
		{"deeper than the decoder", strings.Repeat(`[`, 20000), false, `args: not JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.Compile(json.RawMessage(tc.doc), "args", &schema.Options{Object: tc.object})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compile = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestCompileBoundsErrorIsTyped(t *testing.T) {
	_, err := schema.Compile(json.RawMessage(`{"allOf":[{"$ref":"#"}]}`), "tool.parameters", nil)
	var se *schema.Error
	if !errors.As(err, &se) || se.Path != "tool.parameters" {
		t.Fatalf("Compile = %v, want a *schema.Error at tool.parameters", err)
	}
}

func TestValidate(t *testing.T) {
	const doc = `{"type":"object","properties":{
		"files":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
		"opt":{"$ref":"#/$defs/Opt"},
		"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}},
		"required":["files"],
		"$defs":{"Opt":{"type":"object","properties":{"level":{"enum":["low","high"]}}}}}`
	s, err := schema.Compile(json.RawMessage(doc), "args", &schema.Options{Object: true})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Path, Cause string
	}
	for _, tc := range []struct {
		args string
		want *got // nil: valid
	}{
		{`{"files":[]}`, nil},
		{`{}`, &got{"", `required: missing properties: ["files"]`}},
		{`{"files":[{"name":"a"},{"name":2}]}`, &got{"files[].name", `type: 2 has type "integer", want "string"`}},
		{`{"files":[],"opt":{"level":"max"}}`, &got{"opt.level", `enum: max does not equal any of: [low high]`}},
		{`{"files":[],"pair":["a","b"]}`, &got{"pair[1]", `type: b has type "string", want "integer"`}},
	} {
		err := s.Validate(json.RawMessage(tc.args))
		var ve *schema.ValidationError
		if err != nil && !errors.As(err, &ve) {
			t.Errorf("Validate(%s) = %v, want a *ValidationError", tc.args, err)
			continue
		}
		var g *got
		if ve != nil {
			g = &got{ve.Path, ve.Cause.Error()}
		}
		if diff := cmp.Diff(tc.want, g); diff != "" {
			t.Errorf("Validate(%s) (-want +got):\n%s", tc.args, diff)
		}
	}
	if err := s.Validate(json.RawMessage(`{"files":`)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("Validate of broken JSON = %v", err)
	}
}

func TestValidateRefusesDeepArgumentsOfRecursiveSchemas(t *testing.T) {
	s, err := schema.Compile(json.RawMessage(`{"type":"object","properties":{"next":{"$ref":"#"}}}`), "args", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.MaxDepth() != schema.MaxArgsDepth {
		t.Fatalf("MaxDepth = %d, want %d", s.MaxDepth(), schema.MaxArgsDepth)
	}
	deep := strings.Repeat(`{"next":`, 100) + `{}` + strings.Repeat(`}`, 100)
	if err := s.Validate(json.RawMessage(deep)); err == nil || !strings.Contains(err.Error(), "nested more than 64 levels deep") {
		t.Errorf("Validate of 100 levels = %v, want the depth refused", err)
	}
}

// FuzzCheckedSchemaValidates cross-checks Compile with the validator it protects:
// whatever schema Compile accepts, Validate returns (a $ref cycle it missed would
// overflow the stack and fail the fuzz target).
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
	f.Fuzz(func(t *testing.T, doc, args string) {
		s, err := schema.Compile(json.RawMessage(doc), "s", nil)
		if err != nil {
			return
		}
		_ = s.Validate(json.RawMessage(args))
	})
}
