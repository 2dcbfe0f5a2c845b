package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/decl"
	"github.com/google/jsonschema-go/jsonschema"
)

// An inspectSchema is a method's input or output JSON Schema, resolved once when its manifest is
// registered or published, so a query only validates.
type inspectSchema struct {
	res   *jsonschema.Resolved
	limit kit.ArgsLimit // how deep a value may be nested to be validated (recursive schemas)
}

// compileInspectSchema checks raw, a JSON Schema, and resolves it. kit.CheckToolSchema runs
// first: a page publishes its manifests, and a schema that refers to itself without
// descending into the value would overflow the validator's stack on the first query.
func compileInspectSchema(raw json.RawMessage, path string) (*inspectSchema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf(`%s is missing; give a JSON Schema object, such as {"type":"object"}`, path)
	}
	limit, err := kit.CheckToolSchema(raw, path)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s is not JSON: %v", path, err)
	}
	if err := checkTypes(doc, path); err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s is not a JSON Schema object: %v", path, err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("%s is not a supported JSON Schema: %v", path, err)
	}
	return &inspectSchema{res: res, limit: limit}, nil
}

// Keywords whose value is a schema, an object of schemas, or an array of schemas.
var (
	schemaKeywords    = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
	schemaMapKeywords = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaListKeys    = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaTypeNames   = []string{"string", "number", "integer", "boolean", "null", "object", "array"}
)

// checkTypes refuses a type keyword that names no JSON type ("str", "int"): the validator
// accepts the schema and then rejects every value, so the mistake would show only as a
// query that can never succeed. kit.CheckToolSchema has bounded the nesting already.
func checkTypes(v any, path string) error {
	s, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	switch t := s["type"].(type) {
	case string:
		if !slices.Contains(schemaTypeNames, t) {
			return fmt.Errorf("%s.type %q is not a JSON type; use one of %s", path, t, strings.Join(schemaTypeNames, ", "))
		}
	case []any:
		for _, e := range t {
			if n, _ := e.(string); !slices.Contains(schemaTypeNames, n) {
				return fmt.Errorf("%s.type lists %v, which is not a JSON type; use some of %s", path, e, strings.Join(schemaTypeNames, ", "))
			}
		}
	}
	for _, k := range schemaKeywords {
		if err := checkTypes(s[k], path+"."+k); err != nil {
			return err
		}
	}
	for _, k := range schemaMapKeywords {
		m, _ := s[k].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if err := checkTypes(m[name], path+"."+k+"."+name); err != nil {
				return err
			}
		}
	}
	for _, k := range schemaListKeys {
		l, _ := s[k].([]any)
		for i, e := range l {
			if err := checkTypes(e, fmt.Sprintf("%s.%s[%d]", path, k, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// validate checks doc, a JSON document, against s.
func (s *inspectSchema) validate(doc json.RawMessage) error {
	if err := s.limit.Check(doc); err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	return s.res.Validate(v)
}

// An inspectEntry is a checked copy of an InspectManifest with its schemas resolved.
type inspectEntry struct {
	manifest InspectManifest
	methods  map[string]*inspectMethodSchemas
}

type inspectMethodSchemas struct {
	in, out *inspectSchema
}

// method returns the schemas of the method called name.
func (c *inspectEntry) method(name string) (*inspectMethodSchemas, bool) {
	m, ok := c.methods[name]
	return m, ok
}

// methodNames lists the manifest's method names, for teaching errors.
func (c *inspectEntry) methodNames() string {
	names := make([]string, len(c.manifest.Methods))
	for i, m := range c.manifest.Methods {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// compileInspectManifest checks m (docs/dynamic-plugins.md, "Inspect providers": a
// non-empty trimmed id and description, method names non-empty and unique, each with a
// description and supported schemas) and returns a copy the caller cannot change. where
// names the manifest in errors.
func compileInspectManifest(m InspectManifest, where string) (*inspectEntry, error) {
	c := &inspectEntry{manifest: InspectManifest{ID: strings.TrimSpace(m.ID), Description: strings.TrimSpace(m.Description)},
		methods: map[string]*inspectMethodSchemas{}}
	id := c.manifest.ID
	switch {
	case id == "":
		return nil, fmt.Errorf(`%s: the provider id is empty; give it a short name such as "Slots"`, where)
	case c.manifest.Description == "":
		return nil, fmt.Errorf("%s: provider %q has no description; say in one sentence what it reports", where, id)
	case len(m.Methods) == 0:
		return nil, fmt.Errorf("%s: provider %q has no methods; list at least one {name, description, inputSchema, outputSchema}", where, id)
	}
	for i, dm := range m.Methods {
		name := strings.TrimSpace(dm.Name)
		path := fmt.Sprintf("%s: provider %q method %d", where, id, i)
		switch {
		case name == "":
			return nil, fmt.Errorf("%s has no name", path)
		case c.methods[name] != nil:
			return nil, fmt.Errorf("%s: provider %q lists method %q twice; each method name must be unique", where, id, name)
		case strings.TrimSpace(dm.Description) == "":
			return nil, fmt.Errorf("%s: provider %q method %q has no description; say what it returns", where, id, name)
		}
		in, err := compileInspectSchema(dm.InputSchema, id+"."+name+".inputSchema")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out, err := compileInspectSchema(dm.OutputSchema, id+"."+name+".outputSchema")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		c.methods[name] = &inspectMethodSchemas{in: in, out: out}
		c.manifest.Methods = append(c.manifest.Methods, decl.InspectMethod{Name: name, Description: strings.TrimSpace(dm.Description),
			InputSchema: bytes.Clone(dm.InputSchema), OutputSchema: bytes.Clone(dm.OutputSchema)})
	}
	return c, nil
}

// view is the manifest as cordis_inspect_list shows it. The schemas are copied: the
// caller may keep (and change) the result.
func (c *inspectEntry) view(p decl.InspectPlatform) decl.InspectProvider {
	v := decl.InspectProvider{Platform: p, ID: c.manifest.ID, Description: c.manifest.Description,
		Methods: make([]decl.InspectMethod, len(c.manifest.Methods))}
	for i, m := range c.manifest.Methods {
		m.InputSchema, m.OutputSchema = bytes.Clone(m.InputSchema), bytes.Clone(m.OutputSchema)
		v.Methods[i] = m
	}
	return v
}
