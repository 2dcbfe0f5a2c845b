package catalog

import "encoding/json"

// A Catalog is a runtime's declared API. See the package doc for the order of its slices.
type Catalog struct {
	Events   []Event
	Services []Service
	Tools    []Tool
	Types    []Type
}

// Mode is an event's dispatch mode.
type Mode string

// The dispatch modes, mirroring cordis.
const (
	ModeEmit      Mode = "emit"      // fire and forget
	ModeParallel  Mode = "parallel"  // awaited fan-out; every listener runs
	ModeSerial    Mode = "serial"    // awaited in registration order until a bail value
	ModeBail      Mode = "bail"      // synchronous; the first bail value wins
	ModeWaterfall Mode = "waterfall" // each listener gets next() and may transform or veto
)

// A Ref names a package-level Go declaration.
type Ref struct {
	Pkg  string // import path
	Name string // identifier
}

// String returns "import/path.Name".
func (r Ref) String() string { return r.Pkg + "." + r.Name }

// An Event is a declared event: kit.NewEvent, NewParallel, NewSerial, NewBail or
// NewWaterfall.
type Event struct {
	Name    string  // "agent/error"
	Mode    Mode    //
	Var     Ref     // the package-level variable that declares it
	Payload *GoType // P: the payload struct
	Result  *GoType // R: the listener result; nil for emit and parallel events
	// Params are the fields of the payload, in order: the positional parameters a
	// JavaScript listener receives.
	Params []Field
	// Session is the JavaScript name of the parameter that carries the event's session
	// (the payload's kit.Session field): the event is session-scoped, and a listener of a
	// session hears only that session's emits. Empty for an event every listener hears.
	Session string
	// Signature is the JavaScript listener signature, e.g.
	// 'agent/error'(agent: Agent, turn: number): void. A waterfall adds a trailing
	// next: () => Promise<R> parameter.
	Signature string
	Types     []string // names of the catalog types Signature references, sorted
	Doc       string   // the doc comment, as text
	Summary   string   // its first sentence
	Source    string   // module-relative "path:line" (just "path" in a generated catalog)
}

// A Service is a declared service: kit.NewService[T](key).
type Service struct {
	Key      string  // the ctx key, e.g. "fs"
	Var      Ref     // the package-level variable that declares it
	Type     *GoType // T
	TypeName string  // T's name without a pointer, e.g. "FileSystem"
	// Abstract is true when T is an interface: a seam implemented by another plugin.
	Abstract bool
	// Methods are T's JavaScript-facing methods in declaration order. Methods marked
	// //cordis:internal are not here.
	Methods []Method
	Types   []string // names of the catalog types the methods reference, sorted
	Doc     string
	Summary string
	Source  string
}

// A Method is one JavaScript-facing method of a service.
type Method struct {
	Name   string // Go name, e.g. "ReadFile"
	JSName string // JavaScript name, e.g. "readFile"
	// Async is true when the first Go parameter is a context.Context: JavaScript gets a
	// Promise and the call runs off the JavaScript loop.
	Async bool
	// Params are all the Go parameters, in order. Those with a Role are supplied by the
	// binding and absent from the JavaScript signature.
	Params []Param
	// Results are all the Go results, in order.
	Results []Param
	// Returns is the JavaScript return type, e.g. "Promise<string>" or "() => void".
	Returns string
	// Signature is the JavaScript signature, e.g.
	// async readFile(path: string): Promise<string>.
	Signature string
	Types     []string // names of the catalog types Signature references, sorted
	Doc       string
	Summary   string
	Source    string
}

// A Param is one Go parameter or result of a method.
type Param struct {
	Name   string  // Go name; empty when unnamed
	JSName string  // name in the JavaScript signature (the Go name, or argN)
	Go     *GoType //
	JS     string  // JavaScript type
	Role   Role    // non-empty for parameters the binding supplies
}

// Role marks a method parameter that the binding supplies instead of JavaScript.
type Role string

// The parameter roles.
const (
	// RoleContext is a leading context.Context: the method is async.
	RoleContext Role = "context"
	// RoleKit is a *kit.Context: the binding passes the calling mount's context.
	RoleKit Role = "kit"
)

// A Field is a field of a struct type, or a parameter of an event (a payload field).
type Field struct {
	Name     string  // Go name
	JSName   string  // JavaScript name: the json tag name, else lowerCamel(Name)
	JSONName string  // the key encoding/json uses: the json tag name, else Name
	Go       *GoType //
	JS       string  // JavaScript type
	// Optional is true for a pointer field or a field tagged omitempty or omitzero.
	Optional bool
	Doc      string
}

// A Tool is a declared model-facing tool: kit.NewTool[In, Out](name).
type Tool struct {
	Name   string  // e.g. "cordis_inspect"
	Var    Ref     // the package-level variable that declares it
	Input  *GoType // In
	Output *GoType // Out
	// InputSchema and OutputSchema are JSON Schema documents (draft 2020-12) derived from
	// In and Out: json tags name the properties, doc comments describe them, a named
	// string type with a const set is an enum (its constants' docs in the description),
	// pointer and omitempty fields are optional.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Doc          string // the model-facing description
	Summary      string
	Source       string
}

// TypeKind says what shape a [Type] has.
type TypeKind string

// The type kinds.
const (
	TypeStruct TypeKind = "struct" // Fields
	TypeEnum   TypeKind = "enum"   // a named string type with a const set: Enum
	TypeValue  TypeKind = "value"  // any other named type: Underlying
)

// A Type is the shape of a named Go type that a signature or a tool references.
type Type struct {
	Name       string   // the Go name, which is also the name signatures use
	Go         Ref      //
	Kind       TypeKind //
	Underlying *GoType  // the underlying type of an enum or value type
	// Fields are a struct's JavaScript-facing fields in order, with the fields of embedded
	// structs promoted as encoding/json does. //cordis:internal fields are left out.
	Fields []Field
	Enum   []EnumValue // an enum's constants in declaration order
	JS     string      // the JavaScript type of an enum or value type, e.g. "string"
	// Decl is the declaration as text, TypeScript-like, with the docs of the fields or
	// enum constants: what cordis_inspect prints as a type shape.
	Decl    string
	Refs    []string // names of the other catalog types this one references, sorted
	Doc     string
	Summary string
	Source  string
}

// An EnumValue is one constant of an enum type.
type EnumValue struct {
	Name  string // the Go constant
	Value string // its value
	Doc   string
}
