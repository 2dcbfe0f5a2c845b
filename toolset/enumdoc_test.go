package toolset_test

import (
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
)

// statusDecl is the shape gen-cordis-api writes for an enum whose constants have docs.
const statusDecl = "// Status is an agent's lifecycle state.\ntype Status =\n  // waiting for a message\n  | 'idle'\n  // in a turn\n  | 'running'"

func statusCatalog() *catalog.Catalog {
	return &catalog.Catalog{
		Events: []catalog.Event{{
			Name: "agent/status", Mode: catalog.ModeEmit, Summary: "Status is emitted when an agent's status changes.",
			Doc: "Status is emitted when an agent's status changes.", Signature: "'agent/status'(status: Status): void", Types: []string{"Status"},
		}},
		Services: []catalog.Service{{
			Key: "agents", Summary: "Agents lists the agents.", Doc: "Agents lists the agents.", Types: []string{"Status"},
			Methods: []catalog.Method{{Name: "Status", JSName: "status", Doc: "Status returns an agent's status.", Signature: "status(id: string): Status"}},
		}},
		Types: []catalog.Type{{
			Name: "Status", Go: catalog.Ref{Pkg: "p", Name: "Status"}, Kind: catalog.TypeEnum, JS: "string",
			Enum: []catalog.EnumValue{{Name: "StatusIdle", Value: "idle", Doc: "waiting for a message"}, {Name: "StatusRunning", Value: "running", Doc: "in a turn"}},
			Decl: statusDecl, Summary: "Status is an agent's lifecycle state.",
		}},
	}
}

// TestInspectNamedViewsShowEnumDocs checks that the named api and events views show the
// enum a signature uses with what each value means.
func TestInspectNamedViewsShowEnumDocs(t *testing.T) {
	inspect := inspectWith(t, statusCatalog(), "agents")
	shape := "type shapes (referenced by the signatures above — read these before assuming a field is a string):\n" +
		"    // Status is an agent's lifecycle state.\n    type Status =\n      // waiting for a message\n      | 'idle'\n      // in a turn\n      | 'running'"
	for _, args := range []string{`{"what":"api","name":"agents"}`, `{"what":"events","name":"agent/status"}`} {
		got, err := inspect(args)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, shape) {
			t.Errorf("%s lacks the Status shape with its values' docs:\n%s", args, got)
		}
	}
}
