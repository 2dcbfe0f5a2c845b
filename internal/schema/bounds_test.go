package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// treeSchema is a recursive but finite schema: a tree of named nodes.
const treeSchema = `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"additionalProperties":false}}}`

func TestCheckBoundsAccepts(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		maxDepth     int // the depth limit wanted
	}{
		{"empty object", `{"type":"object"}`, 0},
		{"boolean", `true`, 0},
		{"nested", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}}}}}}`, 0},
		{"shared defs", `{"type":"object","properties":{"a":{"$ref":"#/$defs/s"},"b":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`, 0},
		{"ref to a ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"type":"integer"}}}`, 0},
		{"anchor", `{"type":"object","properties":{"a":{"$ref":"#str"}},"$defs":{"s":{"$anchor":"str","type":"string"}}}`, 0},
		{"escaped pointer", `{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b%20c"}},"$defs":{"a/b c":{"type":"string"}}}`, 0},
		{"tree", treeSchema, MaxArgsDepth},
		{"root recursion through a property", `{"type":"object","properties":{"next":{"$ref":"#"}}}`, MaxArgsDepth},
		{"binary tree", `{"type":"object","properties":{"left":{"$ref":"#"},"right":{"$ref":"#"}}}`, MaxArgsDepth},
		{"named and additional", `{"type":"object","properties":{"a":{"$ref":"#"}},"additionalProperties":{"$ref":"#"}}`, MaxArgsDepth},
		{"tuple", `{"type":"array","prefixItems":[{"$ref":"#"},{"$ref":"#"}],"items":{"$ref":"#"}}`, MaxArgsDepth},
		{"draft-07 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"x":{"$ref":"#/definitions/x"}},"definitions":{"x":{"type":"array","items":{"$ref":"#/definitions/x"}}}}`, MaxArgsDepth},
		{"oneOf with one recursive branch", `{"type":"object","properties":{"v":{"$ref":"#/$defs/v"}},"$defs":{"v":{"oneOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/v"}}]}}}`, MaxArgsDepth},
		{"100 branches", `{"type":"object","properties":{"v":{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"type":"string"},`, 100), ",") + `]}}}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim, err := checkDoc(json.RawMessage(tc.schema), "tool.parameters")
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if lim != tc.maxDepth {
				t.Errorf("MaxDepth = %d, want %d", lim, tc.maxDepth)
			}
		})
	}
}

func TestCheckBoundsRefuses(t *testing.T) {
	chain := func(n int, link string) string {
		var defs []string
		for i := range n {
			defs = append(defs, fmt.Sprintf(`"d%d":%s`, i, strings.ReplaceAll(link, "NEXT", fmt.Sprintf("#/$defs/d%d", i+1))))
		}
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, n))
		return `{"type":"object","properties":{"v":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	}
	for _, tc := range []struct {
		name, schema, path, msg string
	}{
		{"root refers to itself", `{"type":"object","$ref":"#"}`, "tool.parameters.$ref", `"#" refers to the schema itself and never reaches a property or an item`},
		{"property refers to itself", `{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`, "tool.parameters.properties.a.$ref", "refers to itself"},
		{"defs cycle", `{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, "tool.parameters.$defs.a", "the cycle tool.parameters.$defs.a → tool.parameters.$defs.b → tool.parameters.$defs.a never reaches a property or an item"},
		{"allOf back to the root", `{"type":"object","allOf":[{"$ref":"#"}]}`, "tool.parameters", "tool.parameters.allOf[0] → tool.parameters never reaches"},
		{"anyOf", `{"anyOf":[{"type":"string"},{"$ref":"#"}]}`, "tool.parameters", "never reaches a property or an item"},
		{"oneOf", `{"oneOf":[{"$ref":"#"}]}`, "tool.parameters", "never reaches"},
		{"not", `{"not":{"$ref":"#"}}`, "tool.parameters", "never reaches"},
		{"if", `{"if":{"$ref":"#"}}`, "tool.parameters", "never reaches"},
		{"then", `{"if":true,"then":{"$ref":"#"}}`, "tool.parameters", "never reaches"},
		{"else", `{"if":true,"else":{"$ref":"#"}}`, "tool.parameters", "never reaches"},
		{"dependentSchemas", `{"dependentSchemas":{"x":{"$ref":"#"}}}`, "tool.parameters", "never reaches"},
		{"draft-07 dependencies", `{"dependencies":{"x":{"$ref":"#"},"y":["x"]}}`, "tool.parameters", "never reaches"},
		{"anchor", `{"$anchor":"top","properties":{"a":{"$ref":"#top"}},"allOf":[{"$ref":"#top"}]}`, "tool.parameters", "never reaches"},
		{"long chain", chain(300, `{"$ref":"NEXT"}`), "tool.parameters.properties.v", "a value 1 level into the arguments would be checked against more than 256 schemas"},
		{"exponential branches", chain(40, `{"anyOf":[{"$ref":"NEXT"},{"$ref":"NEXT"}]}`), "tool.parameters.$defs.d40", "more than 256 schemas"},
		{"recursion through two branches", `{"type":"object","properties":{"v":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[{"type":"array","items":{"$ref":"#/$defs/n"}},{"type":"array","items":{"$ref":"#/$defs/n"}}]}}}`, "tool.parameters.$defs.n", "make one branch hold the recursion"},
		{"recursion through allOf twice", `{"type":"object","allOf":[{"properties":{"a":{"$ref":"#"}}},{"properties":{"a":{"$ref":"#"}}}]}`, "tool.parameters", "levels into the arguments would be checked against more than 256"},
		{"the arguments themselves", `{"allOf":[` + strings.TrimSuffix(strings.Repeat(`{"type":"object"},`, 300), ",") + `]}`, "tool.parameters", "the arguments would be checked against more than 256"},
		{"deep ref chains at every level", `{"type":"object","properties":{"a":{"$ref":"#/$defs/d0"}},"$defs":{` + func() string {
			var defs []string
			for i := range 100 {
				defs = append(defs, fmt.Sprintf(`"d%d":{"$ref":"#/$defs/d%d"}`, i, i+1))
			}
			return strings.Join(defs, ",") + `,"d100":{"$ref":"#"}`
		}() + `}}`, "tool.parameters", "nest more than 1024 checks"},
		{"dynamicRef", `{"$dynamicAnchor":"n","properties":{"a":{"$dynamicRef":"#n"}}}`, "tool.parameters", "$dynamicAnchor is not supported"},
		{"dynamicRef below", `{"properties":{"a":{"$dynamicRef":"#n"}}}`, "tool.parameters.properties.a", "$dynamicRef is not supported"},
		{"nested $id", `{"properties":{"a":{"$id":"urn:x","$ref":"#"}}}`, "tool.parameters.properties.a", "$id below the root is not supported"},
		{"ref nowhere", `{"properties":{"a":{"$ref":"#/$defs/missing"}}}`, "tool.parameters.properties.a.$ref", `points at no schema (nothing at "/$defs/missing")`},
		{"ref into a keyword that is no schema", `{"enum":[{"x":1}],"properties":{"a":{"$ref":"#/enum/0"}}}`, "tool.parameters.properties.a.$ref", "points at no schema"},
		{"remote ref", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "tool.parameters.properties.a.$ref", "must point inside the schema"},
		{"unknown anchor", `{"properties":{"a":{"$ref":"#nope"}}}`, "tool.parameters.properties.a.$ref", "names no $anchor"},
		{"duplicate anchor", `{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, "tool.parameters.$defs.b", "defined twice"},
		{"ref not a string", `{"properties":{"a":{"$ref":5}}}`, "tool.parameters.properties.a.$ref", "must be a string such as"},
		{"not JSON", `{"type":`, "tool.parameters", "not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := checkDoc(json.RawMessage(tc.schema), "tool.parameters")
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *Error", err)
			}
			if se.Path != tc.path || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("err = %v\nwant path %q and a message containing %q", err, tc.path, tc.msg)
			}
		})
	}
}

func TestCheckDepth(t *testing.T) {
	for _, tc := range []struct {
		args string
		ok   bool
	}{
		{`{}`, true},
		{`{"a":[{"b":1}]}`, true},
		{`{"a":"[[[[[[["}`, true}, // brackets in strings do not nest
		{`{"a":"\"[[[[","b":[1]}`, true},
		{`{"a":[{"b":[]}]}`, false},
		{`[[[[`, false}, // not JSON, but too deep to validate either way
	} {
		err := checkDepth([]byte(tc.args), 3)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%s) = %v, want ok=%v", tc.args, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "nested more than 3 levels deep") {
			t.Errorf("Check(%s) = %v: the message does not name the limit", tc.args, err)
		}
	}
	if err := checkDepth([]byte(strings.Repeat("[", 10000)), 0); err != nil {
		t.Errorf("a limit of 0 refused: %v", err)
	}
}

// TestCheckBoundsLarge keeps the check cheap on the largest documents a mount can
// send: linear in the schema, not in the product of its parts.
func TestCheckBoundsLarge(t *testing.T) {
	var props []string
	for i := range 20000 {
		props = append(props, fmt.Sprintf(`"p%d":{"$ref":"#"}`, i))
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	lim, err := checkDoc(json.RawMessage(schema), "s")
	if err != nil || lim != MaxArgsDepth {
		t.Fatalf("checkBounds = %d, %v", lim, err)
	}
}

// checkDoc decodes schema and runs checkBounds on it, as Compile does.
func checkDoc(schema json.RawMessage, name string) (int, error) {
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return 0, &Error{Path: name, Msg: fmt.Sprintf("not JSON: %v", err)}
	}
	return checkBounds(doc, name)
}
