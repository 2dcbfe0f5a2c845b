package toolset

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/cordis"
)

// sectionOrder is the fixed order of the cordis_inspect report.
var sectionOrder = []cordis.Section{
	cordis.SectionServices, cordis.SectionPlugins, cordis.SectionTools,
	cordis.SectionTemporary, cordis.SectionAPI, cordis.SectionEvents,
}

func heading(s cordis.Section) string {
	if s == cordis.SectionTemporary {
		return "Temporary Plugins"
	}
	return string(s)
}

// joinSections renders "## <heading>\n<body>" blocks separated by blank lines.
func joinSections(parts []section) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + heading(p.name) + "\n")
		b.WriteString(strings.Join(p.lines, "\n"))
	}
	return b.String()
}

type section struct {
	name  cordis.Section
	lines []string
}

func servicesSection(c *kit.Context, v view) []string {
	var lines []string
	for _, s := range c.Services() {
		if !v.sees(s.Session) {
			continue
		}
		if s.OwnerState == kit.StateActive {
			lines = append(lines, fmt.Sprintf("- %s (provided by %s)", s.Key, s.Owner))
		} else {
			lines = append(lines, fmt.Sprintf("- %s (provided by %s, %s)", s.Key, s.Owner, s.OwnerState))
		}
	}
	if len(lines) == 0 {
		return []string{"(no services provided)"}
	}
	return lines
}

func pluginsSection(c *kit.Context, v view) []string {
	fibers := c.Fibers()
	slices.SortStableFunc(fibers, func(a, b kit.FiberInfo) int { return cmp.Compare(a.Name, b.Name) })
	var lines []string
	for _, f := range fibers {
		if !v.sees(f.Session) {
			continue
		}
		lines = append(lines, fmt.Sprintf("- %s [%s]", f.Name, f.State))
	}
	if len(lines) == 0 {
		return []string{"(no plugins)"}
	}
	return lines
}

func toolsSection(tools *kit.Tools) []string {
	var lines []string
	for _, s := range tools.Schemas() {
		lines = append(lines, "- "+s.Name)
	}
	if len(lines) == 0 {
		return []string{"(no tools registered)"}
	}
	return lines
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
