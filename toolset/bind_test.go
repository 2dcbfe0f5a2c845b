package toolset_test

import (
	"testing"

	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl"
	"github.com/cordiskit/cordiskit/tooldecl/cordis"
	"github.com/google/go-cmp/cmp"
)

// TestToolsetToolsUseTheCoreTier checks that the toolset registers its own tools with the
// schemas and descriptions of the core tier, through tooldecl.
func TestToolsetToolsUseTheCoreTier(t *testing.T) {
	h := newHarness(t)
	for _, want := range []func() (kit.ToolSchema, error){
		func() (kit.ToolSchema, error) { return tooldecl.Schema(generated.Catalog, cordis.Inspect) },
		func() (kit.ToolSchema, error) { return tooldecl.Schema(generated.Catalog, cordis.Mount) },
		func() (kit.ToolSchema, error) { return tooldecl.Schema(generated.Catalog, cordis.Unmount) },
	} {
		want, err := want()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := h.tools.Get(want.Name)
		if !ok {
			t.Errorf("%s is not registered", want.Name)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s registered (-core tier +registered):\n%s", want.Name, diff)
		}
	}
}
