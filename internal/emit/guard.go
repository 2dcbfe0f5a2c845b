package emit

import (
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
)

// KitPath is the import path of the kit.
const KitPath = "github.com/cordiskit/cordiskit/kit"

// modeSpec is m's row of catalog.Modes. The scanner makes events of those modes only, so
// another is a bug in whatever built the catalog.
func modeSpec(m catalog.Mode) catalog.ModeSpec {
	s, ok := m.Spec()
	if !ok {
		panic("emit: an event of unknown dispatch mode " + string(m))
	}
	return s
}

// guard writes func _() { … } ("" when there is nothing to guard): a statement per source
// symbol the catalog was built from, each stating the type the catalog recorded. Renaming
// or retyping a declaration, a method or a field, or changing an enum constant, then
// breaks `go build` of the generated package until gen-cordis-api runs again (the
// stringer trick). Doc changes compile; verify-cordis-api catches those.
func guard(c *catalog.Catalog, q qualifier) string {
	var body []string
	for _, e := range c.Events {
		targs := []string{q.goType(e.Payload)}
		if e.Result != nil {
			targs = append(targs, q.goType(e.Result))
		}
		body = append(body, guardVar("*"+instance(q.q(KitPath, modeSpec(e.Mode).KitType), targs...), q.q(e.Var.Pkg, e.Var.Name)))
		if p := e.Payload; p.Kind == catalog.KindNamed {
			body = append(body, fieldGuards(q, q.q(p.Pkg, p.Name), e.Params)...)
		}
	}
	for _, s := range c.Services {
		body = append(body, guardVar("*"+instance(q.q(KitPath, "Service"), q.goType(s.Type)), q.q(s.Var.Pkg, s.Var.Name)))
		recv := q.goType(s.Type)
		if !s.Abstract && s.Type.Kind != catalog.KindPointer {
			recv = "*" + recv // the method set the binding uses
		}
		for _, m := range s.Methods {
			params := []string{recv}
			for _, p := range m.Params {
				params = append(params, q.goType(p.Go))
			}
			var results []string
			for _, r := range m.Results {
				results = append(results, q.goType(r.Go))
			}
			body = append(body, guardVar(signature("", params, results), "("+recv+")."+m.Name))
		}
	}
	for _, t := range c.Tools {
		body = append(body, guardVar("*"+instance(q.q(KitPath, "ToolDecl"), q.goType(t.Input), q.goType(t.Output)), q.q(t.Var.Pkg, t.Var.Name)))
	}
	for _, t := range c.Types {
		body = append(body, typeGuard(q, t)...)
	}
	if len(body) == 0 {
		return ""
	}
	return "// A compile-time guard: the build breaks here when a declaration, method, field or\n" +
		"// enum constant this catalog was generated from changes. Run go generate again.\n" +
		funcLit("func _()", body...)
}

func typeGuard(q qualifier, t catalog.Type) []string {
	typ := q.q(t.Go.Pkg, t.Go.Name)
	switch t.Kind {
	case catalog.TypeStruct:
		return append([]string{"var _ " + typ}, fieldGuards(q, typ, t.Fields)...)
	case catalog.TypeEnum:
		// A constant whose value changed makes its key a second false: a compile error
		// ("duplicate key false in map literal").
		out := []string{"var _ " + typ}
		for _, v := range t.Enum {
			out = append(out, "var _ = "+values("map[bool]int", "false: 0", binary("==", q.q(t.Go.Pkg, v.Name), lit(v.Value))+": 1"))
		}
		return out
	}
	u := q.goType(t.Underlying)
	return []string{guardVar(u, u+"(*new("+typ+"))")}
}

// fieldGuards states the type of each field: var _ string = pkg.T{}.Name.
func fieldGuards(q qualifier, typ string, fields []catalog.Field) []string {
	out := make([]string, len(fields))
	for i, fd := range fields {
		out[i] = guardVar(q.goType(fd.Go), typ+"{}."+fd.Name)
	}
	return out
}

// guardVar writes var _ typ = x.
func guardVar(typ, x string) string { return "var _ " + typ + " = " + x }

// instance writes the generic type typ[args].
func instance(typ string, args ...string) string { return typ + "[" + strings.Join(args, ", ") + "]" }
