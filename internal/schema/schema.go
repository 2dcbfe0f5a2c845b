package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Schema is a JSON Schema document that passed every check of Compile and was resolved
// once, so validating a value only validates. It is safe for concurrent use.
type Schema struct {
	resolved *jsonschema.Resolved
	maxDepth int // how deep a value may be nested to be validated; 0: any depth
}

// Options are what a caller requires of a schema beyond what Compile always checks. A nil
// *Options means none.
type Options struct {
	// Object requires the root to be an object schema with "type": "object", as the
	// arguments of a tool are an object.
	Object bool
}

// Compile checks raw, a JSON Schema document (draft 2020-12 or draft-07), and resolves
// it. what names the schema in errors ("tool.parameters", "P.get.outputSchema"), and every
// error names the offending part of the schema under it and says how to fix it:
//
//   - the document is decoded once and checked for the mistakes the validator reports
//     without a path or not at all (a type that names no JSON type, a pattern that does
//     not compile, a $ref to another document);
//   - validating against it must take bounded work and stack (no $ref cycle that stays on
//     one value, at most MaxChecks schemas per value, nesting at most MaxNesting); these
//     errors are *Error;
//   - github.com/google/jsonschema-go resolves it.
func Compile(raw json.RawMessage, what string, opts *Options) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf(`%s is missing; give a JSON Schema object, such as {"type":"object"}`, what)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, &Error{Path: what, Msg: fmt.Sprintf("not JSON: %v", err)}
	}
	if opts != nil && opts.Object {
		if err := checkObject(doc, what); err != nil {
			return nil, err
		}
	}
	if err := checkKeywords(doc, what); err != nil {
		return nil, err
	}
	maxDepth, err := checkBounds(doc, what)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s is not a valid JSON Schema: %w", what, err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid JSON Schema: %w", what, err)
	}
	return &Schema{resolved: res, maxDepth: maxDepth}, nil
}

// checkObject requires doc to be an object schema of type "object".
func checkObject(doc any, what string) error {
	root, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("%s must be a JSON Schema object such as {type: 'object', properties: {…}}, got %s", what, jsonKind(doc))
	}
	if t, ok := root["type"]; !ok || t != "object" {
		return fmt.Errorf("%s.type must be \"object\": a tool's arguments are an object, e.g. {type: 'object', properties: {text: {type: 'string'}}, required: ['text']}", what)
	}
	return nil
}

// MaxDepth is how deep a value may be nested for Validate to validate it: MaxArgsDepth for
// a recursive schema, 0 (any depth) for one that runs out first.
func (s *Schema) MaxDepth() int { return s.maxDepth }

// Validate checks doc, a JSON document, against s. A value nested deeper than MaxDepth is
// refused before it is validated; a value that does not match is a *ValidationError.
func (s *Schema) Validate(doc json.RawMessage) error {
	if err := checkDepth(doc, s.maxDepth); err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	if err := s.resolved.Validate(v); err != nil {
		path, cause := locate(err)
		return &ValidationError{Path: path, Cause: cause, err: err}
	}
	return nil
}

// A ValidationError reports a value that does not match a schema.
type ValidationError struct {
	// Path locates the offending value, as field names joined by dots, with [] for an
	// array element and [N] for a tuple position: "files[].name". It is empty when the
	// problem is the value itself (a missing required property, an unexpected one, the
	// wrong type); the message names the properties then.
	Path string
	// Cause is the innermost failure: "type: 1 has type \"integer\", want \"string\"".
	Cause error

	err error // the validator's whole error, which names the schema's path at each step
}

// Error is the validator's message: each step names the part of the schema it applied
// ("validating root: validating /properties/text: type: …").
func (e *ValidationError) Error() string { return e.err.Error() }

// Unwrap returns the validator's error.
func (e *ValidationError) Unwrap() error { return e.err }

// locate turns a jsonschema-go validation error into the instance path it concerns and
// the innermost cause. The library wraps the cause once per schema it descended through
// ("validating /properties/a: validating /$defs/A: …"); schema pointers that extend the
// previous one add path segments, and a jump elsewhere (a $ref) keeps the instance where
// it is.
func locate(err error) (path string, cause error) {
	var segs []string
	prev := ""
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		outer, rest := err.Error(), inner.Error()
		ptr, ok := strings.CutPrefix(strings.TrimSuffix(outer, rest), "validating ")
		if !ok || !strings.HasSuffix(ptr, ": ") {
			break // not one of the library's layers
		}
		ptr = strings.TrimSuffix(ptr, ": ")
		if strings.HasPrefix(ptr, prev+"/") {
			segs = append(segs, instanceSegs(strings.Split(ptr[len(prev)+1:], "/"))...)
		}
		if strings.HasPrefix(ptr, "/") {
			prev = ptr
		} else {
			prev = "" // the root, named by its $id or a placeholder
		}
		err = inner
	}
	return strings.TrimPrefix(strings.Join(segs, ""), "."), err
}

// instanceSegs maps schema pointer tokens to instance path segments.
func instanceSegs(tokens []string) []string {
	var out []string
	for i := 0; i < len(tokens); i++ {
		switch tokens[i] {
		case "properties":
			if i+1 < len(tokens) {
				i++
				out = append(out, "."+unescapeToken(tokens[i]))
			}
		case "patternProperties":
			i++
			out = append(out, ".*")
		case "additionalProperties", "unevaluatedProperties":
			out = append(out, ".*")
		case "items", "additionalItems", "unevaluatedItems", "contains":
			out = append(out, "[]")
		case "prefixItems":
			if i+1 < len(tokens) {
				i++
				out = append(out, "["+tokens[i]+"]")
			}
		case "allOf", "anyOf", "oneOf", "dependentSchemas":
			i++ // the index or key names a subschema of the same instance
		}
	}
	return out
}
