package invoke

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

// TestFreshSchemasBounded: the schemas the registry check compiles wait for their tool's
// first call, but a plugin that registers tools it never calls cannot grow them without
// bound; a call takes its schema out.
func TestFreshSchemasBounded(t *testing.T) {
	inv := new(Invoker)
	raw := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}}}`, i))
	}
	for i := range 10 * maxFresh {
		if err := inv.checkSchemas("", kit.ToolSchema{Name: "t", InputSchema: raw(i)}); err != nil {
			t.Fatal(err)
		}
		if len(inv.fresh) > maxFresh {
			t.Fatalf("after %d registrations %d schemas wait, more than %d", i+1, len(inv.fresh), maxFresh)
		}
	}
	last := raw(10*maxFresh - 1)
	kept := inv.fresh[string(last)]
	if kept == nil {
		t.Fatal("the last registration's schema is not kept")
	}
	if in := inv.resolveInput(last); in.compiled != kept || in.err != nil {
		t.Errorf("resolveInput compiled again (%p, %v), want the kept schema %p", in.compiled, in.err, kept)
	}
	if _, ok := inv.fresh[string(last)]; ok {
		t.Error("the schema still waits after its first use")
	}
}
