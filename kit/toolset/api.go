package toolset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/kit"
)

const typeShapesHeader = "type shapes (referenced by the signatures above — read these before assuming a field is a string):"

const waterfallCaution = "waterfall listeners receive a trailing next() and MUST call it to delegate — returning without next() vetoes the chain."

// liveServices maps every service provided by an active fiber to its owner.
func liveServices(c *kit.Context) map[string]string {
	live := map[string]string{}
	for _, s := range c.Services() {
		if s.OwnerState == kit.StateActive {
			live[s.Key] = s.Owner
		}
	}
	return live
}

// apiSection renders the catalog intersected with the live service store. With name it
// narrows to one live catalogued service and includes its full documentation: the
// service's whole doc comment (every paragraph, not only the summary) and each method's.
func apiSection(cat *catalog.Catalog, c *kit.Context, name string) ([]string, error) {
	live := liveServices(c)
	if name != "" {
		svc, ok := cat.Service(name)
		if !ok {
			return nil, fmt.Errorf("no catalogued service named %q; catalogued services: %s (a service provided by a mount has no catalog entry — read its provider's code instead)",
				name, listOrNone(serviceKeys(cat)))
		}
		if _, ok := live[name]; !ok {
			return nil, fmt.Errorf("catalogued service %q is not running, so it cannot be injected now; running catalogued services: %s",
				name, listOrNone(liveCatalogued(cat, live)))
		}
		lines := []string{serviceLine(svc)}
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

	var lines, sigs, notRunning []string
	for i := range cat.Services {
		svc := &cat.Services[i]
		if _, ok := live[svc.Key]; !ok {
			notRunning = append(notRunning, svc.Key)
			continue
		}
		lines = append(lines, serviceLine(svc))
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
	if len(notRunning) > 0 {
		lines = append(lines, "not running (loadable services with no live provider): "+strings.Join(notRunning, ", "))
	}
	lines = append(lines, typeShapes(cat, sigs)...)
	lines = append(lines, "mount ctx API (what apply(ctx) receives):")
	for _, v := range catalog.FacadeVerbs {
		lines = append(lines, "- "+strings.Join(v.Forms, " / ")+" — "+v.Doc)
	}
	return lines, nil
}

func serviceLine(svc *catalog.Service) string {
	if svc.Summary == "" {
		return "- " + svc.Key
	}
	return "- " + svc.Key + " — " + svc.Summary
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

// eventsSection lists every catalogued event, or only name with its full doc.
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
		return append(lines, waterfallCaution), nil
	}
	for i := range cat.Events {
		ev := &cat.Events[i]
		lines = append(lines, eventLine(ev), "    "+ev.Signature)
	}
	return append(lines, waterfallCaution), nil
}

func eventLine(ev *catalog.Event) string {
	line := fmt.Sprintf("- %s [%s]", ev.Name, ev.Mode)
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
