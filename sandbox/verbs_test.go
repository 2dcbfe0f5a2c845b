package sandbox

import (
	"slices"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
)

// The documented façade (catalog.FacadeVerbs, which cordis_inspect and the markdown catalog
// print) names exactly the members the ctx façade has, plus the injected-service form.
func TestFacadeVerbsDocumentEveryMember(t *testing.T) {
	var documented []string
	for _, v := range catalog.FacadeVerbs {
		for _, n := range v.Names() {
			if n != "<key>" && !slices.Contains(documented, n) {
				documented = append(documented, n)
			}
		}
	}
	members := slices.Clone(ctxMembers[:])
	slices.Sort(documented)
	slices.Sort(members)
	if !slices.Equal(documented, members) {
		t.Fatalf("catalog.FacadeVerbs documents %v, but the ctx façade has %v", documented, members)
	}
}
