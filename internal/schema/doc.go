// Package schema compiles the JSON Schemas of model-facing tools once and validates values
// against them: every schema a model's or a page's value is checked against goes through
// it (a tool's arguments in the sandbox and the invoker, an inspect provider's input and
// output in the runner, the registry's check of every registration).
//
//	s, err := schema.Compile(raw, "tool.parameters", &schema.Options{Object: true})
//	…
//	err = s.Validate(args) // a *ValidationError names the offending value's path
//
// # What Compile checks
//
// github.com/google/jsonschema-go resolves and validates. This package adds what the
// library lacks, each error naming the part of the schema ("tool.parameters.properties.n.type")
// and saying how to fix it:
//
//   - keywords the validator takes without complaint and then fails every value on (a
//     type that names no JSON type), or reports without a path (a pattern that does not
//     compile, a property list that is not an object);
//   - bounds: the validator follows $ref without a cycle check and visits every branch of
//     allOf/anyOf/oneOf, so a schema that refers to itself without descending into the
//     value would overflow the Go stack, and branches that share their targets multiply
//     the work. Compile proves that at most MaxChecks schemas apply to one value, that
//     validation nests at most MaxNesting deep, and, for a recursive schema, makes
//     Validate refuse values nested deeper than MaxArgsDepth before validating them.
//     These errors are *Error.
//
// The package is internal: a runtime's own tools reach the validator through the registry
// (kit.Tools.Register, with the invoker's check installed) and invoke.Invoker.Invoke, and
// mount code through ctx.tools.register; none needs to compile a schema itself.
package schema
