package toolset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/kit"
)

const typeShapesHeader = "type shapes (referenced by the signatures above — read these before assuming a field is a string):"

// liveServices maps every service provided by an active fiber that v sees to its owner.
func liveServices(c *kit.Context, v view) map[string]string {
	live := map[string]string{}
	for _, s := range c.Services() {
		if s.OwnerState == kit.StateActive && v.sees(s.Session) {
			live[s.Key] = s.Owner
		}
	}
	return live
}

// apiSection renders the catalog intersected with the live service store. With name it
// narrows to one catalogued service — a running one, or an abstract seam a mount may
// implement — and includes its full documentation: the service's whole doc comment
// (every paragraph, not only the summary) and each method's.
func apiSection(cat *catalog.Catalog, c *kit.Context, v view, name string) ([]string, error) {
	live := liveServices(c, v)
	if name == "" {
		return apiList(cat, live), nil
	}
	svc, ok := cat.Service(name)
	if !ok {
		return nil, fmt.Errorf("no catalogued service named %q; catalogued services: %s (a service provided by a mount has no catalog entry — read its provider's code instead)",
			name, listOrNone(serviceKeys(cat)))
	}
	owner, running := live[name]
	if !running && !svc.Abstract {
		return nil, fmt.Errorf("catalogued service %q is not running, so it cannot be injected now; running catalogued services: %s",
			name, listOrNone(liveCatalogued(cat, live)))
	}
	// A seam nobody provides is still shown: its interface is what a mount implements.
	lines := []string{serviceLine(svc, owner)}
	if doc := docLines(svc.Doc); len(doc) > 0 {
		// A blank line keeps the service's comment apart from its first method's.
		lines = append(append(lines, indent(doc)...), "")
	}
	for _, m := range svc.Methods {
		lines = append(lines, indent(docLines(m.Doc))...)
		lines = append(lines, "    "+m.Signature)
	}
	return append(lines, typeShapes(cat, svc.Signatures())...), nil
}

// apiList is the api section without a name: every running catalogued service with its
// signatures, the abstract seams nobody provides, what is not running, the type shapes
// and the mount ctx API.
func apiList(cat *catalog.Catalog, live map[string]string) []string {
	var lines, sigs, notRunning, seams []string
	for i := range cat.Services {
		svc := &cat.Services[i]
		owner, ok := live[svc.Key]
		switch {
		case !ok && svc.Abstract:
			// Listed with its methods: they are what a mount implements to provide it.
			seams = append(seams, serviceLine(svc, ""))
			for _, m := range svc.Methods {
				seams = append(seams, "    "+m.Signature)
			}
			sigs = append(sigs, svc.Signatures()...)
			continue
		case !ok:
			notRunning = append(notRunning, svc.Key)
			continue
		}
		lines = append(lines, serviceLine(svc, owner))
		for _, m := range svc.Methods {
			lines = append(lines, "    "+m.Signature)
		}
		sigs = append(sigs, svc.Signatures()...)
	}
	var uncatalogued []string
	for key := range live {
		if _, ok := cat.Service(key); !ok {
			uncatalogued = append(uncatalogued, key)
		}
	}
	slices.Sort(uncatalogued)
	for _, key := range uncatalogued {
		lines = append(lines, fmt.Sprintf("- %s (provided by %s, no catalog entry)", key, live[key]))
	}
	if len(seams) > 0 {
		lines = append(lines, `abstract seams no plugin provides yet (what:"api" with the name adds each method's doc):`)
		lines = append(lines, seams...)
	}
	if len(notRunning) > 0 {
		lines = append(lines, "not running (loadable services with no live provider): "+strings.Join(notRunning, ", "))
	}
	lines = append(lines, typeShapes(cat, sigs)...)
	lines = append(lines, "mount ctx API (what apply(ctx) receives):")
	for _, v := range catalog.FacadeVerbs {
		lines = append(lines, "- "+strings.Join(v.Forms, " / ")+" — "+v.Doc)
	}
	return lines
}

// serviceLine is a service's line in the api section: its key, a note when it is an
// abstract seam, and its summary. owner is the live provider's name, or "" for none.
func serviceLine(svc *catalog.Service, owner string) string {
	line := "- " + svc.Key + seamNote(svc, owner)
	if svc.Summary == "" {
		return line
	}
	return line + " — " + svc.Summary
}

// seamNote marks an abstract seam — an interface that a plugin implements, not a service
// the runtime itself provides — and says how a mount implements it, so a model knows it
// may (and, when nobody provides it, must) supply one itself.
func seamNote(svc *catalog.Service, owner string) string {
	switch {
	case !svc.Abstract:
		return ""
	case owner != "":
		return fmt.Sprintf(" (abstract seam: an interface implemented by a plugin, now by %s; inject it to call it)", owner)
	}
	return fmt.Sprintf(" (abstract seam: implemented by a plugin, and none provides it now; provide it with ctx.provide('%s', { …the methods below }))", svc.Key)
}

func typeShapes(cat *catalog.Catalog, sigs []string) []string {
	types := cat.TypeClosure(sigs...)
	if len(types) == 0 {
		return nil
	}
	lines := []string{typeShapesHeader}
	for _, t := range types {
		lines = append(lines, indent(strings.Split(t.Decl, "\n"))...)
	}
	return lines
}

// eventsSection lists every catalogued event, or only name with its full doc and the
// shapes of the types its signature references.
func eventsSection(cat *catalog.Catalog, name string) ([]string, error) {
	var lines []string
	if name != "" {
		ev, ok := cat.Event(name)
		if !ok {
			return nil, fmt.Errorf("no catalogued event named %q; catalogued events: %s", name, listOrNone(eventNames(cat)))
		}
		lines = append(lines, eventLine(ev))
		lines = append(lines, indent(docLines(ev.Doc))...)
		lines = append(lines, "    "+ev.Signature)
		// The payload's types, enums with what each value means: what a listener reads.
		lines = append(lines, typeShapes(cat, []string{ev.Signature})...)
		return append(lines, catalog.ListenerNotes()...), nil
	}
	for i := range cat.Events {
		ev := &cat.Events[i]
		lines = append(lines, eventLine(ev), "    "+ev.Signature)
	}
	return append(lines, catalog.ListenerNotes()...), nil
}

func eventLine(ev *catalog.Event) string {
	line := fmt.Sprintf("- %s [%s]", ev.Name, ev.Mode)
	if ev.Session != "" {
		line = fmt.Sprintf("- %s [%s, session-scoped: you hear only your own session's]", ev.Name, ev.Mode)
	}
	if ev.Summary != "" {
		line += " — " + ev.Summary
	}
	return line
}

// docLines renders a doc comment as // lines, so the report can never be mistaken for code.
func docLines(doc string) []string {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(doc, "\n") {
		out = append(out, strings.TrimRight("// "+l, " "))
	}
	return out
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if l == "" {
			out[i] = ""
			continue
		}
		out[i] = "    " + l
	}
	return out
}

func serviceKeys(cat *catalog.Catalog) []string {
	var keys []string
	for _, s := range cat.Services {
		keys = append(keys, s.Key)
	}
	return keys
}

func liveCatalogued(cat *catalog.Catalog, live map[string]string) []string {
	var keys []string
	for _, s := range cat.Services {
		if _, ok := live[s.Key]; ok {
			keys = append(keys, s.Key)
		}
	}
	return keys
}

func eventNames(cat *catalog.Catalog) []string {
	var names []string
	for _, e := range cat.Events {
		names = append(names, e.Name)
	}
	return names
}
