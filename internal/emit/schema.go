package emit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/internal/schema"
)

// Draft is the JSON Schema dialect of every generated tool schema.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Schemas derives the input and output JSON Schema of every tool from its Go types, as
// described by the catalog's type shapes, checks each as the kit compiles it (internal/schema) and stores
// them in the catalog. Property names follow encoding/json (the tools' Bind decodes
// with it): the json tag name, else the Go field name.
func Schemas(c *catalog.Catalog) error {
	for i := range c.Tools {
		t := &c.Tools[i]
		var err error
		if t.InputSchema, err = toolSchema(c, t.Input); err != nil {
			return fmt.Errorf("tool %q (%s): input schema: %w", t.Name, t.Source, err)
		}
		if t.OutputSchema, err = toolSchema(c, t.Output); err != nil {
			return fmt.Errorf("tool %q (%s): output schema: %w", t.Name, t.Source, err)
		}
	}
	return nil
}

func toolSchema(c *catalog.Catalog, gt *catalog.GoType) (json.RawMessage, error) {
	s, err := schemaOf(c, gt, nil)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	// $schema first, for the reader: jsonschema-go writes it after the other keywords.
	raw := []byte(`{"$schema":"` + Draft + `"`)
	if string(body) != "{}" {
		raw = append(raw, ',')
	}
	raw = append(raw, body[1:]...)
	// Check what is written, not the struct it came from, as a runtime compiles it when the
	// tool is registered: a schema the kit would refuse is refused here, at generation.
	if _, err := schema.Compile(raw, "the schema", nil); err != nil {
		return nil, err
	}
	return raw, nil
}

// schemaOf returns the schema of a Go type; stack holds the named types being expanded,
// to refuse recursive types (a schema here is inlined, so it would not end).
func schemaOf(c *catalog.Catalog, gt *catalog.GoType, stack []catalog.Ref) (*jsonschema.Schema, error) {
	switch gt.Kind {
	case catalog.KindBasic:
		return basicSchema(gt.Name)
	case catalog.KindPointer:
		return schemaOf(c, gt.Elem, stack)
	case catalog.KindSlice, catalog.KindArray:
		items, err := schemaOf(c, gt.Elem, stack)
		if err != nil {
			return nil, err
		}
		if gt.Kind == catalog.KindArray {
			return &jsonschema.Schema{Type: "array", Items: items, MinItems: ptr(int(gt.Len)), MaxItems: ptr(int(gt.Len))}, nil
		}
		// encoding/json writes a nil slice as null.
		return &jsonschema.Schema{Types: []string{"null", "array"}, Items: items}, nil
	case catalog.KindMap:
		elem, err := schemaOf(c, gt.Elem, stack)
		if err != nil {
			return nil, err
		}
		return &jsonschema.Schema{Types: []string{"null", "object"}, AdditionalProperties: elem}, nil
	case catalog.KindAny:
		return &jsonschema.Schema{}, nil
	case catalog.KindStruct:
		return &jsonschema.Schema{Type: "object"}, nil
	case catalog.KindNamed:
		return namedSchema(c, gt, stack)
	}
	return nil, fmt.Errorf("%s has no JSON form", gt)
}

func basicSchema(name string) (*jsonschema.Schema, error) {
	switch name {
	case "string":
		return &jsonschema.Schema{Type: "string"}, nil
	case "bool":
		return &jsonschema.Schema{Type: "boolean"}, nil
	case "int", "int8", "int16", "int32", "int64", "rune":
		return &jsonschema.Schema{Type: "integer"}, nil
	case "uint", "uint8", "uint16", "uint32", "uint64", "byte":
		return &jsonschema.Schema{Type: "integer", Minimum: ptr(0.0)}, nil
	case "float32", "float64":
		return &jsonschema.Schema{Type: "number"}, nil
	}
	return nil, fmt.Errorf("%s values have no JSON Schema (an error marshals as {}): use a string", name)
}

func namedSchema(c *catalog.Catalog, gt *catalog.GoType, stack []catalog.Ref) (*jsonschema.Schema, error) {
	switch gt.Pkg + "." + gt.Name {
	case "time.Duration":
		// The scanner refuses it in a tool's types: JavaScript reads a duration as
		// milliseconds and encoding/json as nanoseconds, and no schema makes both true.
		return nil, fmt.Errorf("%s has no JSON Schema: its unit differs between JavaScript (milliseconds) and encoding/json (nanoseconds); use an integer field with the unit in its name (…Ms int)", gt)
	case "time.Time":
		return &jsonschema.Schema{Type: "string", Format: "date-time"}, nil
	case "encoding/json.RawMessage":
		return &jsonschema.Schema{}, nil
	}
	ref := catalog.Ref{Pkg: gt.Pkg, Name: gt.Name}
	if slices.Contains(stack, ref) {
		return nil, fmt.Errorf("%s is recursive; a tool schema is inlined, so it cannot describe a recursive type", ref)
	}
	t := typeByRef(c, ref)
	if t == nil {
		return nil, fmt.Errorf("no shape for %s in the catalog", ref)
	}
	stack = append(stack, ref)
	switch t.Kind {
	case catalog.TypeEnum:
		s := &jsonschema.Schema{Type: "string", Description: enumDescription(t)}
		for _, v := range t.Enum {
			s.Enum = append(s.Enum, v.Value)
		}
		return s, nil
	case catalog.TypeValue:
		return schemaOf(c, t.Underlying, stack)
	}
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, f := range t.Fields {
		fs, err := schemaOf(c, f.Go, stack)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		if doc := unwrap(f.Doc); doc != "" && fs.Description != "" {
			fs.Description = doc + " (" + fs.Description + ")"
		} else if doc != "" {
			fs.Description = doc
		}
		s.Properties[f.JSONName] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.JSONName)
		if !f.Optional {
			s.Required = append(s.Required, f.JSONName)
		}
	}
	return s, nil
}

// enumDescription says what each value of an enum means, from its constants' doc
// comments: `One of: "plain"; "loud": upper case.` The enum keyword lists the values;
// models and MCP clients read the description, which is where the meaning goes (oneOf of
// const schemas says the same but is refused or flattened by some clients). Empty when no
// constant has a doc: the description would only repeat enum.
func enumDescription(t *catalog.Type) string {
	documented := false
	parts := make([]string, len(t.Enum))
	for i, v := range t.Enum {
		parts[i] = strconv.Quote(v.Value)
		if doc := strings.Join(strings.Fields(v.Doc), " "); doc != "" {
			documented = true
			parts[i] += ": " + doc
		}
	}
	if !documented {
		return ""
	}
	desc := "One of: " + strings.Join(parts, "; ")
	if !strings.HasSuffix(desc, ".") {
		desc += "."
	}
	return desc
}

// typeByRef finds a shape by its Go declaration (two packages may not share a name in
// one catalog, but the Ref is what the GoType says).
func typeByRef(c *catalog.Catalog, ref catalog.Ref) *catalog.Type {
	for i := range c.Types {
		if c.Types[i].Go == ref {
			return &c.Types[i]
		}
	}
	return nil
}

// unwrap joins the lines of each paragraph of a doc comment: the line breaks of a Go
// comment are layout, not content. Paragraphs with indented or list lines keep theirs.
func unwrap(doc string) string {
	paras := strings.Split(doc, "\n\n")
	for i, p := range paras {
		lines := strings.Split(p, "\n")
		keep := false
		for _, l := range lines {
			keep = keep || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "- ")
		}
		if !keep {
			paras[i] = strings.Join(lines, " ")
		}
	}
	return strings.Join(paras, "\n\n")
}

func ptr[T any](v T) *T { return &v }
