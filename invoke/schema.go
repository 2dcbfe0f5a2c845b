package invoke

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/google/jsonschema-go/jsonschema"
)

// ErrInvalidArguments is wrapped by every *ArgumentError.
var ErrInvalidArguments = errors.New("invalid arguments")

// An ArgumentError reports tool arguments that do not match the tool's input schema. The
// tool did not run.
type ArgumentError struct {
	// Tool is the tool that was called.
	Tool string
	// Path locates the offending value in the arguments, as field names joined by dots,
	// with [] for an array element and [N] for a tuple position: "files[].name". It is
	// empty when the problem is the arguments object itself (a missing required property,
	// an unexpected one, or not an object at all); the message names the properties then.
	Path string
	// Err is the validation failure.
	Err error
}

func (e *ArgumentError) Error() string {
	where := "invalid arguments"
	if e.Path != "" {
		where = fmt.Sprintf("invalid argument %q", e.Path)
	}
	return fmt.Sprintf("tool %q: %s: %v; call it again with arguments that match its input schema",
		e.Tool, where, e.Err)
}

// Unwrap returns ErrInvalidArguments and the validation failure.
func (e *ArgumentError) Unwrap() []error { return []error{ErrInvalidArguments, e.Err} }

// inputSchema is one tool's input schema, resolved once.
type inputSchema struct {
	resolved *jsonschema.Resolved // nil: the tool declared no schema and takes anything
	limit    kit.ArgsLimit        // how deep arguments may be nested to be validated
	err      error                // the schema itself is broken
}

// resolveInput resolves a tool's input schema. The registry refuses schemas that
// kit.CheckToolSchema refuses, but the check runs again here: it yields the limit on the
// arguments' depth that keeps validating against a recursive schema bounded.
func resolveInput(raw json.RawMessage) *inputSchema {
	if len(bytes.TrimSpace(raw)) == 0 {
		return &inputSchema{}
	}
	limit, err := kit.CheckToolSchema(raw, "inputSchema")
	if err != nil {
		return &inputSchema{err: err}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return &inputSchema{err: err}
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return &inputSchema{err: err}
	}
	return &inputSchema{resolved: rs, limit: limit}
}

// check validates args and returns them normalized ({} for absent arguments).
func (in *inputSchema) check(tool string, args json.RawMessage) (json.RawMessage, error) {
	args = normalizeArgs(args)
	if in.err != nil {
		return nil, fmt.Errorf("tool %q cannot be called: its input schema is invalid (%v); the plugin that registered it must fix the schema", tool, in.err)
	}
	if err := in.limit.Check(args); err != nil {
		return nil, &ArgumentError{Tool: tool, Err: err}
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, &ArgumentError{Tool: tool, Err: fmt.Errorf("arguments are not valid JSON: %w", err)}
	}
	if in.resolved == nil {
		return args, nil
	}
	if err := in.resolved.Validate(&v); err != nil {
		path, cause := locate(err)
		return nil, &ArgumentError{Tool: tool, Path: path, Err: cause}
	}
	return args, nil
}

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
				out = append(out, "."+unescapePointer(tokens[i]))
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

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
