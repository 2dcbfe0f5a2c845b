package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Event returns the event with the given name.
func (c *Catalog) Event(name string) (*Event, bool) {
	return find(c.Events, func(e *Event) bool { return e.Name == name })
}

// Service returns the service with the given key.
func (c *Catalog) Service(key string) (*Service, bool) {
	return find(c.Services, func(s *Service) bool { return s.Key == key })
}

// Tool returns the tool with the given name.
func (c *Catalog) Tool(name string) (*Tool, bool) {
	return find(c.Tools, func(t *Tool) bool { return t.Name == name })
}

// Type returns the type shape with the given name.
func (c *Catalog) Type(name string) (*Type, bool) {
	return find(c.Types, func(t *Type) bool { return t.Name == name })
}

// find is a linear scan: catalogs are small (hundreds of entries), read rarely (an
// inspect call), and a hand-built catalog need not be sorted.
func find[T any](s []T, match func(*T) bool) (*T, bool) {
	for i := range s {
		if match(&s[i]) {
			return &s[i], true
		}
	}
	return nil, false
}

// Method returns the method with the given JavaScript name.
func (s *Service) Method(jsName string) (*Method, bool) {
	return find(s.Methods, func(m *Method) bool { return m.JSName == jsName })
}

// Signatures returns the JavaScript signatures of the service's methods, in order.
func (s *Service) Signatures() []string {
	out := make([]string, len(s.Methods))
	for i, m := range s.Methods {
		out[i] = m.Signature
	}
	return out
}

// TypeClosure returns the type shapes a set of signatures needs: every catalog type whose
// name occurs as a whole word in one of the signatures, and, transitively, every type
// those reference, sorted by name. This is the "type shapes" part of cordis_inspect's api
// section: the nouns a reader needs before calling the verbs.
func (c *Catalog) TypeClosure(signatures ...string) []*Type {
	var names []string
	for i := range c.Types {
		name := c.Types[i].Name
		for _, sig := range signatures {
			if containsWord(sig, name) {
				names = append(names, name)
				break
			}
		}
	}
	return c.Closure(names...)
}

// Closure returns the named types and, transitively, every type they reference, sorted
// by name. Unknown names are ignored.
func (c *Catalog) Closure(names ...string) []*Type {
	seen := map[string]bool{}
	var out []*Type
	frontier := names
	for len(frontier) > 0 {
		var next []string
		for _, name := range frontier {
			if seen[name] {
				continue
			}
			seen[name] = true
			if t, ok := c.Type(name); ok {
				out = append(out, t)
				next = append(next, t.Refs...)
			}
		}
		frontier = next
	}
	slices.SortFunc(out, func(a, b *Type) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// containsWord reports whether word occurs in s delimited by non-identifier characters.
func containsWord(s, word string) bool {
	for i := 0; word != ""; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !isIdent(s[start-1])) && (end == len(s) || !isIdent(s[end])) {
			return true
		}
		i = start + 1
	}
	return false
}

func isIdent(b byte) bool {
	return b == '_' || b == '$' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b >= 0x80
}

// Merge combines catalogs — typically the kit's core tier and a runtime's own — into a
// new sorted catalog. An event name, service key or tool name present in two of them is
// an error naming both declarations; a type present in both is kept once when it is the
// same Go type and is an error otherwise.
func Merge(cs ...*Catalog) (*Catalog, error) {
	out := &Catalog{}
	events := map[string]Ref{}
	services := map[string]Ref{}
	tools := map[string]Ref{}
	types := map[string]Ref{}
	var errs []string
	dup := func(seen map[string]Ref, what, name string, r Ref) bool {
		if old, ok := seen[name]; ok {
			if what != "type" || old != r {
				errs = append(errs, fmt.Sprintf("%s %q is declared by both %s and %s", what, name, old, r))
			}
			return true
		}
		seen[name] = r
		return false
	}
	for _, c := range cs {
		if c == nil {
			continue
		}
		for _, e := range c.Events {
			if !dup(events, "event", e.Name, e.Var) {
				out.Events = append(out.Events, e)
			}
		}
		for _, s := range c.Services {
			if !dup(services, "service", s.Key, s.Var) {
				out.Services = append(out.Services, s)
			}
		}
		for _, t := range c.Tools {
			if !dup(tools, "tool", t.Name, t.Var) {
				out.Tools = append(out.Tools, t)
			}
		}
		for _, t := range c.Types {
			if !dup(types, "type", t.Name, t.Go) {
				out.Types = append(out.Types, t)
			}
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return nil, fmt.Errorf("catalog: merging: %s", strings.Join(errs, "; "))
	}
	out.Sort()
	return out, nil
}

// Sort puts the catalog in its canonical order: events and tools by name, services by
// key, types by name (then import path). Methods keep their order.
func (c *Catalog) Sort() {
	slices.SortStableFunc(c.Events, func(a, b Event) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortStableFunc(c.Services, func(a, b Service) int { return cmp.Compare(a.Key, b.Key) })
	slices.SortStableFunc(c.Tools, func(a, b Tool) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortStableFunc(c.Types, func(a, b Type) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Go.Pkg, b.Go.Pkg))
	})
}
