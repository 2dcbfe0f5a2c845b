package benchfix

import (
	"fmt"
	"strings"
)

// SynthSize is the shape of a synthetic module: how many declaring packages, and how
// many events, services (each of Methods methods) and tools they declare between them.
type SynthSize struct{ Pkgs, Events, Services, Methods, Tools int }

// Budget is the synthetic module the generator's performance budget is stated for: 500
// events, 200 services of 10 methods and 50 tools, over 10 packages.
var Budget = SynthSize{Pkgs: 10, Events: 500, Services: 200, Methods: 10, Tools: 50}

func (s SynthSize) String() string {
	return fmt.Sprintf("%d events, %d services × %d methods, %d tools in %d packages", s.Events, s.Services, s.Methods, s.Tools, s.Pkgs)
}

// Packages returns the declaring packages of the module, by slash-separated path
// relative to the module root (p0/p0.go, p1/p1.go, …). Each imports only the kit; the
// caller adds go.mod and the api package the generator runs in.
func (s SynthSize) Packages() map[string]string {
	files := map[string]string{}
	for p := range s.Pkgs {
		files[fmt.Sprintf("p%d/p%d.go", p, p)] = s.pkg(p)
	}
	return files
}

// pkg is package p of the synthetic module: its share of the events (cycling through
// the five dispatch modes), services and tools, with documented payload, item and input
// types. Catalog type names are global, so every type carries the package's prefix.
func (s SynthSize) pkg(p int) string {
	r := strings.NewReplacer("$P", fmt.Sprintf("P%d", p), "$p", fmt.Sprintf("p%d", p))
	var b strings.Builder
	w := func(format string, args ...any) { b.WriteString(r.Replace(fmt.Sprintf(format, args...))) }
	w("// Package $p is part of the synthetic runtime.\npackage $p\n\nimport (\n\t\"context\"\n\n\t\"github.com/cordiskit/cordiskit/kit\"\n)\n\n")
	w("// $PResult is what listeners return.\ntype $PResult struct {\n\t// OK says whether it worked.\n\tOK bool `json:\"ok\"`\n}\n\n")
	w("// $PItem is a thing services move around.\ntype $PItem struct {\n\t// ID identifies it.\n\tID string `json:\"id\"`\n\t// Tags label it.\n\tTags []string `json:\"tags,omitempty\"`\n\t// Kind says what it is.\n\tKind $PKind `json:\"kind\"`\n}\n\n")
	w("// $PKind is an item's kind.\ntype $PKind string\n\n// The kinds.\nconst (\n\t$PKindA $PKind = \"a\"\n\t$PKindB $PKind = \"b\"\n)\n\n")
	modes := []string{"NewEvent[%s]", "NewParallel[%s]", "NewSerial[%s, bool]", "NewBail[%s, string]", "NewWaterfall[%s, $PResult]"}
	for e := range s.Events / s.Pkgs {
		payload := fmt.Sprintf("$PEv%dPayload", e)
		w("// Ev%d fires when event %d of package $p happens.\nvar Ev%d = kit.%s(\"$p/ev-%d\")\n\n", e, e, e, fmt.Sprintf(modes[e%len(modes)], payload), e)
		w("// %s is the payload of Ev%d.\ntype %s struct {\n\t// Item is the item concerned.\n\tItem *$PItem\n\tCount int\n\tNote string `json:\"note\"`\n}\n\n", payload, e, payload)
	}
	for i := range s.Services / s.Pkgs {
		w("// Svc%d is service %d.\nvar Svc%d = kit.NewService[$PService%d](\"$p-svc-%d\")\n\n", i, i, i, i, i)
		w("// $PService%d is an abstract seam.\ntype $PService%d interface {\n", i, i)
		for m := range s.Methods {
			if m%2 == 0 {
				w("\t// Get%d returns an item.\n\tGet%d(ctx context.Context, id string) (*$PItem, error)\n", m, m)
			} else {
				w("\t// List%d lists items.\n\tList%d(kind $PKind) []$PItem\n", m, m)
			}
		}
		w("}\n\n")
	}
	for t := range s.Tools / s.Pkgs {
		w("// Tool%d is tool %d: it looks items up.\nvar Tool%d = kit.NewTool[$PTool%dInput, $PItem](\"$p_tool_%d\")\n\n", t, t, t, t, t)
		w("// $PTool%dInput is Tool%d's input.\ntype $PTool%dInput struct {\n\t// Query to run.\n\tQuery string `json:\"query\"`\n\t// Limit on results.\n\tLimit *int `json:\"limit,omitempty\"`\n}\n\n", t, t, t)
	}
	w("var _ = context.Background\n")
	return b.String()
}
