package sandbox

import (
	"regexp"
	"slices"
	"testing"
)

// The documented façade (catalog.FacadeVerbs, which cordis_inspect and the markdown catalog
// print) names exactly the members the ctx façade has, plus the injected-service form:
// ctxMembers is derived from it, so every documented name must be one member builds, and the
// error for a missing member must offer each of them.
func TestFacadeVerbsDocumentEveryMember(t *testing.T) {
	want := []string{"on", "once", "provide", "get", "effect", "tools", "setTimeout", "setInterval", "sleep"}
	if !slices.Equal(ctxMembers, want) {
		t.Fatalf("catalog.FacadeVerbs documents %v, but the ctx façade implements %v (add the verb to ctxFacade.member, then here)", ctxMembers, want)
	}
	h := newHost(t, nil)
	m, f := h.expose("")
	defer h.unmount(m, f)
	for _, name := range ctxMembers {
		if got := h.eval(m, `typeof ctx.`+name); got != `"function"` && got != `"object"` {
			t.Errorf("typeof ctx.%s = %s, want a function or object", name, got)
		}
	}
	offered := regexp.MustCompile(`[A-Za-z]+`).FindAllString(ctxOffers, -1)
	for _, name := range ctxMembers {
		if !slices.Contains(offered, name) {
			t.Errorf("the missing-member error offers %q but not %s", ctxOffers, name)
		}
	}
}
