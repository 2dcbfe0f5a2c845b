package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordiskit/cordiskit/internal/schema"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// An schemaOf is a method's input or output JSON Schema, compiled once when its
// manifest is registered or published (schema.Compile: a page publishes its manifests, and
// a schema that refers to itself without descending into the value would overflow the
// validator's stack on the first query), so a query only validates.
type schemaOf struct{ s *schema.Schema }

func compileSchema(raw json.RawMessage, path string) (*schemaOf, error) {
	s, err := schema.Compile(raw, path, nil)
	if err != nil {
		return nil, err
	}
	return &schemaOf{s}, nil
}

// validate checks doc, a JSON document, against s.
func (s *schemaOf) validate(doc json.RawMessage) error { return s.s.Validate(doc) }

// An entry is a checked copy of an Manifest with its schemas resolved.
type entry struct {
	manifest Manifest
	methods  map[string]*methodSchemas
}

type methodSchemas struct {
	in, out *schemaOf
}

// method returns the schemas of the method called name.
func (c *entry) method(name string) (*methodSchemas, bool) {
	m, ok := c.methods[name]
	return m, ok
}

// methodNames lists the manifest's method names, for teaching errors.
func (c *entry) methodNames() string {
	names := make([]string, len(c.manifest.Methods))
	for i, m := range c.manifest.Methods {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// compileManifest checks m (docs/dynamic-plugins.md, "Inspect providers": a
// non-empty trimmed id and description, method names non-empty and unique, each with a
// description and supported schemas) and returns a copy the caller cannot change. where
// names the manifest in errors.
func compileManifest(m Manifest, where string) (*entry, error) {
	c := &entry{manifest: Manifest{ID: strings.TrimSpace(m.ID), Description: strings.TrimSpace(m.Description)},
		methods: map[string]*methodSchemas{}}
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
		in, err := compileSchema(dm.InputSchema, id+"."+name+".inputSchema")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out, err := compileSchema(dm.OutputSchema, id+"."+name+".outputSchema")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		c.methods[name] = &methodSchemas{in: in, out: out}
		c.manifest.Methods = append(c.manifest.Methods, dynamic.InspectMethod{Name: name, Description: strings.TrimSpace(dm.Description),
			InputSchema: bytes.Clone(dm.InputSchema), OutputSchema: bytes.Clone(dm.OutputSchema)})
	}
	return c, nil
}

// view is the manifest as cordis_inspect_list shows it. The schemas are copied: the
// caller may keep (and change) the result.
func (c *entry) view(p dynamic.InspectPlatform) dynamic.InspectProvider {
	v := dynamic.InspectProvider{Platform: p, ID: c.manifest.ID, Description: c.manifest.Description,
		Methods: make([]dynamic.InspectMethod, len(c.manifest.Methods))}
	for i, m := range c.manifest.Methods {
		m.InputSchema, m.OutputSchema = bytes.Clone(m.InputSchema), bytes.Clone(m.OutputSchema)
		v.Methods[i] = m
	}
	return v
}
