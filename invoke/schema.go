package invoke

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cordiskit/cordiskit/internal/schema"
	"github.com/cordiskit/cordiskit/kit"
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

// inputSchema is one tool's input schema, compiled once.
type inputSchema struct {
	compiled *schema.Schema // nil: the tool declared no schema and takes anything
	err      error          // the schema itself is broken
}

// resolveInput compiles a tool's input schema, or takes the one checkSchemas compiled
// when the tool was registered. The registry refuses schemas that do not compile once an
// invoker's check is installed, but a tool registered before that is compiled here, and
// its calls are refused if it does not.
func (inv *Invoker) resolveInput(raw json.RawMessage) *inputSchema {
	if len(bytes.TrimSpace(raw)) == 0 {
		return &inputSchema{}
	}
	inv.mu.Lock()
	s, ok := inv.fresh[string(raw)]
	delete(inv.fresh, string(raw))
	inv.mu.Unlock()
	if ok {
		return &inputSchema{compiled: s}
	}
	s, err := schema.Compile(raw, "inputSchema", nil)
	return &inputSchema{compiled: s, err: err}
}

// maxFresh bounds the input schemas checkSchemas keeps for the first call of their tools.
const maxFresh = 64

// checkSchemas is the registry check (kit.Tools.AddCheck) the invoker installs: a tool
// whose input or output schema does not compile — not JSON Schema, or one the validator
// could not check a value against with bounded work — is refused when it is registered,
// so the plugin registering it gets the error rather than every caller. The compiled
// input schema is kept, by its text, for the tool's first call.
func (inv *Invoker) checkSchemas(_ string, s kit.ToolSchema) error {
	var in *schema.Schema
	for _, sc := range []struct {
		name string
		doc  json.RawMessage
	}{{"inputSchema", s.InputSchema}, {"outputSchema", s.OutputSchema}} {
		if len(bytes.TrimSpace(sc.doc)) == 0 {
			continue
		}
		c, err := schema.Compile(sc.doc, sc.name, nil)
		if err != nil {
			return err
		}
		if in == nil && sc.name == "inputSchema" {
			in = c
		}
	}
	if in != nil {
		inv.mu.Lock()
		if len(inv.fresh) >= maxFresh || inv.fresh == nil {
			inv.fresh = map[string]*schema.Schema{} // tools registered and never called
		}
		inv.fresh[string(s.InputSchema)] = in
		inv.mu.Unlock()
	}
	return nil
}

// check validates args and returns them normalized ({} for absent arguments).
func (in *inputSchema) check(tool string, args json.RawMessage) (json.RawMessage, error) {
	args = normalizeArgs(args)
	if in.err != nil {
		return nil, fmt.Errorf("tool %q cannot be called: its input schema is invalid (%v); the plugin that registered it must fix the schema", tool, in.err)
	}
	if in.compiled == nil {
		var raw json.RawMessage // checks the syntax without decoding a value
		if err := json.Unmarshal(args, &raw); err != nil {
			return nil, &ArgumentError{Tool: tool, Err: fmt.Errorf("arguments are not valid JSON: %w", err)}
		}
		return args, nil
	}
	if err := in.compiled.Validate(args); err != nil {
		var ve *schema.ValidationError
		if errors.As(err, &ve) {
			return nil, &ArgumentError{Tool: tool, Path: ve.Path, Err: ve.Cause}
		}
		return nil, &ArgumentError{Tool: tool, Err: err}
	}
	return args, nil
}
