package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/doc/comment"
	"path"
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
)

// modeLegend explains the dispatch modes once, above the events: each mode's summary
// (catalog.Modes), then what marks a session-scoped event.
var modeLegend = func() string {
	modes := make([]string, len(catalog.Modes))
	for i, s := range catalog.Modes {
		modes[i] = "**" + string(s.Mode) + "** (" + s.Summary + ")"
	}
	return "Dispatch modes: " + strings.Join(modes, ", ") + ". An event marked **session-scoped** carries " +
		"its session in a parameter: a plugin of one session never hears another session's emits of it."
}()

// A mdWriter renders one markdown file.
type mdWriter struct {
	bytes.Buffer
	cat *catalog.Catalog // for type links
}

// finish returns the file, ending in exactly one newline.
func (w *mdWriter) finish() []byte {
	return append(bytes.TrimRight(w.Bytes(), "\n"), '\n')
}

func (w *mdWriter) p(format string, args ...any) {
	fmt.Fprintf(w, format, args...)
	w.WriteString("\n\n")
}

// doc renders a Go doc comment as markdown: paragraphs, lists and code blocks survive,
// and [Name] links to a catalog type point at its shape below.
func (w *mdWriter) doc(text string) {
	if text == "" {
		return
	}
	parser := comment.Parser{LookupSym: func(recv, name string) bool { return true }}
	printer := comment.Printer{
		HeadingLevel: 5,
		DocLinkURL: func(link *comment.DocLink) string {
			if link.Recv == "" && link.ImportPath == "" {
				if _, ok := w.cat.Type(link.Name); ok {
					return "#" + strings.ToLower(link.Name)
				}
			}
			return ""
		},
	}
	w.Write(printer.Markdown(parser.Parse(text)))
	w.WriteString("\n")
}

func (w *mdWriter) code(lang string, lines ...string) {
	w.WriteString("```" + lang + "\n")
	for _, l := range lines {
		w.WriteString(l + "\n")
	}
	w.WriteString("```\n\n")
}

// typeLinks writes "Types: [A](#a) · [B](#b)" for the catalog types a signature uses.
func (w *mdWriter) typeLinks(names []string) {
	var links []string
	for _, n := range names {
		if _, ok := w.cat.Type(n); ok {
			links = append(links, "["+n+"](#"+strings.ToLower(n)+")")
		}
	}
	if len(links) > 0 {
		w.p("Types: %s", strings.Join(links, " · "))
	}
}

func (w *mdWriter) source(src string) {
	if src != "" {
		w.p("Source: `%s`", src)
	}
}

// EventsAndServices renders events-and-services.md: the events grouped by namespace, the
// services with their methods, the type shapes, and — when inherited is not nil — the
// kit's core tier that every plugin also sees.
func EventsAndServices(c, inherited *catalog.Catalog, header string) []byte {
	w := &mdWriter{cat: c}
	w.p("<!-- %s -->", header)
	w.p("# Events and services")
	w.p("Every event a plugin can listen to (its dispatch mode and exact JavaScript listener signature) " +
		"and every `ctx.<key>` service it can call (its exact public interface). This file is generated " +
		"from the Go declarations by gen-cordis-api and checked by verify-cordis-api: do not edit it by " +
		"hand. Type names link to their shapes under [Types](#types).")

	w.p("## Events")
	w.p("%s", modeLegend)
	if len(c.Events) == 0 {
		w.p("No events are declared.")
	}
	group := ""
	for _, e := range c.Events {
		if g := namespace(e.Name); g != group {
			group = g
			w.p("### %s", g)
		}
		w.p("#### %s — %s", e.Name, e.Mode)
		if e.Session != "" {
			w.p("Session-scoped (`%s`): a session's listeners hear only their own session's emits; the runtime's own listeners hear every session's.", e.Session)
		}
		w.doc(e.Doc)
		w.code("ts", e.Signature)
		w.params(e.Params)
		w.typeLinks(e.Types)
		w.source(e.Source)
	}

	w.p("## Services")
	w.p("The `ctx.<key>` services a plugin can inject. An abstract seam is an interface that another " +
		"plugin implements; the interface is what consumers code against. Methods marked `async` return " +
		"a Promise.")
	if len(c.Services) == 0 {
		w.p("No services are declared.")
	}
	for _, s := range c.Services {
		w.service(&s)
	}

	w.p("## Types")
	w.p("The shapes of the named types the signatures above use, with their fields' JavaScript names and types.")
	shapes := signatureTypes(c)
	if len(shapes) == 0 {
		w.p("No types are referenced.")
	}
	for _, t := range shapes {
		w.p("### %s", t.Name)
		w.doc(t.Doc)
		// The doc is right above; the summary line that starts Decl would repeat it.
		w.code("ts", strings.TrimPrefix(t.Decl, "// "+t.Summary+"\n"))
		w.source(t.Source)
	}
	w.inherited(inherited)
	return w.finish()
}

func (w *mdWriter) service(s *catalog.Service) {
	title := fmt.Sprintf("### ctx.%s — %s", s.Key, s.TypeName)
	if s.Abstract {
		title += " (abstract seam)"
	}
	w.p("%s", title)
	if s.Abstract {
		w.p("An interface that a plugin implements: inject `%s` to call whichever plugin provides it, or "+
			"provide it yourself — from Go with `%s.Provide(c, impl)`, from a mounted plugin with "+
			"`ctx.provide('%s', { … })` — implementing the methods below.", s.Key, path.Base(s.Var.Pkg)+"."+s.Var.Name, s.Key)
	}
	w.doc(s.Doc)
	if len(s.Methods) == 0 {
		w.p("No JavaScript-facing methods.")
	} else {
		w.code("ts", s.Signatures()...)
		for _, m := range s.Methods {
			fmt.Fprintf(w, "- `%s` — %s\n", m.JSName, oneLine(m.Summary))
		}
		w.WriteString("\n")
	}
	w.typeLinks(s.Types)
	w.source(s.Source)
}

// params lists an event's parameters with their docs, when any has one.
func (w *mdWriter) params(fs []catalog.Field) {
	documented := false
	for _, f := range fs {
		documented = documented || f.Doc != ""
	}
	if !documented {
		return
	}
	for _, f := range fs {
		if f.Doc != "" {
			fmt.Fprintf(w, "- `%s` — %s\n", f.JSName, oneLine(f.Doc))
		} else {
			fmt.Fprintf(w, "- `%s`\n", f.JSName)
		}
	}
	w.WriteString("\n")
}

// inherited ends the catalog with what a plugin inherits beyond these declarations: the
// kit's core tier, summarized, and the ctx members of the sandbox façade.
func (w *mdWriter) inherited(in *catalog.Catalog) {
	w.p("## Inherited tier")
	if in != nil {
		w.p("The kit's core tier: what every plugin sees besides the declarations above. Its full entries " +
			"are in the kit's own catalog.")
		if len(in.Events) > 0 {
			w.p("Inherited events")
			for _, e := range in.Events {
				fmt.Fprintf(w, "- %s [%s] — %s (`%s`)\n", e.Name, e.Mode, oneLine(e.Summary), e.Source)
			}
			w.WriteString("\n")
		}
		if len(in.Services) > 0 {
			w.p("Inherited services")
			for _, s := range in.Services {
				fmt.Fprintf(w, "- ctx.%s — %s (`%s`)\n", s.Key, oneLine(s.Summary), s.Source)
			}
			w.WriteString("\n")
		}
	}
	w.p("Inherited ctx members (the façade a mounted plugin's `apply` receives)")
	for _, v := range catalog.FacadeVerbs {
		forms := make([]string, len(v.Forms))
		for i, f := range v.Forms {
			forms[i] = "`ctx." + f + "`"
		}
		fmt.Fprintf(w, "- %s — %s\n", strings.Join(forms, " / "), v.Doc)
	}
	w.WriteString("\n")
}

// signatureTypes returns the shapes the event and service signatures need; types only
// tools use are described by their schemas in tool-catalog.md.
func signatureTypes(c *catalog.Catalog) []*catalog.Type {
	var names []string
	for _, e := range c.Events {
		names = append(names, e.Types...)
	}
	for _, s := range c.Services {
		names = append(names, s.Types...)
	}
	return c.Closure(names...)
}

// namespace is an event's group: the part of its name before the first slash.
func namespace(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i] + "/*"
	}
	return name
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ToolCatalog renders tool-catalog.md: every tool with its description, a table of its
// input's parameters and its input and output JSON Schemas.
func ToolCatalog(c *catalog.Catalog, header string) []byte {
	w := &mdWriter{cat: c}
	w.p("<!-- %s -->", header)
	w.p("# Tool catalog")
	w.p("The model-facing tools declared in Go, with the JSON Schemas (draft 2020-12) derived from their " +
		"input and output types. Generated by gen-cordis-api and checked by verify-cordis-api: do not " +
		"edit it by hand.")
	if len(c.Tools) == 0 {
		w.p("No tools are declared.")
	}
	for _, t := range c.Tools {
		w.p("## %s", t.Name)
		w.doc(t.Doc)
		if in := t.Input.Named(); in != nil {
			if shape, ok := w.cat.Type(in.Name); ok && len(shape.Fields) > 0 {
				w.WriteString("| parameter | type | required | description |\n|---|---|---|---|\n")
				for _, f := range shape.Fields {
					req := "yes"
					if f.Optional {
						req = "no"
					}
					fmt.Fprintf(w, "| `%s` | `%s` | %s | %s |\n", f.JSONName, cell(f.JS), req, cell(w.fieldDesc(&f)))
				}
				w.WriteString("\n")
			}
		}
		w.p("Input schema:")
		w.code("json", indentJSON(t.InputSchema))
		w.p("Output schema:")
		w.code("json", indentJSON(t.OutputSchema))
		w.source(t.Source)
	}
	return w.finish()
}

// fieldDesc is a parameter's description in the tool table: its doc, and for an enum
// what each value means, as the schema's description says it.
func (w *mdWriter) fieldDesc(f *catalog.Field) string {
	desc := oneLine(f.Doc)
	if n := f.Go.Named(); n != nil {
		if t := typeByRef(w.cat, catalog.Ref{Pkg: n.Pkg, Name: n.Name}); t != nil && t.Kind == catalog.TypeEnum {
			if values := enumDescription(t); values != "" {
				desc = strings.TrimSpace(desc + " " + values)
			}
		}
	}
	return desc
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}
