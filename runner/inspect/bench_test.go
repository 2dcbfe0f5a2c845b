package inspect

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// BenchmarkQueryHost measures cordis_inspect_query of a host provider through the
// registry — the checks in order, the input and output validated against the compiled
// schemas, the answer compacted — beside its floor, the provider's own call and the JSON
// encoding any answer needs. Compare the two in one run (ns/op of query over floor). Most
// of the difference is the two validations (internal/schema), not the registry.
func BenchmarkQueryHost(b *testing.B) {
	type slot struct {
		Name  string `json:"name"`
		Owner string `json:"owner"`
	}
	answer := func(context.Context, Call) (any, error) {
		return map[string]any{"ok": true, "slots": []slot{{"header", "clock-1"}, {"sidebar", "notes-2"}, {"footer", ""}}}, nil
	}
	in := json.RawMessage(`{"path":"/header","depth":2}`)
	b.Run("floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := answer(context.Background(), Call{Method: "list", Input: in, Session: "s1"})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("query", func(b *testing.B) {
		reg, err := New(func() *kit.Context { return nil }, nil) // Slots reads nothing of the host
		if err != nil {
			b.Fatal(err)
		}
		defer reg.Close()
		m := Manifest{ID: "Slots", Description: "Slots reports the slots.", Methods: []dynamic.InspectMethod{{Name: "list", Description: "Lists them.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"depth":{"type":"integer","minimum":0}},"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["ok","slots"],"properties":{"ok":{"type":"boolean"},"slots":{"type":"array","items":{"type":"object","required":["name","owner"],"properties":{"name":{"type":"string"},"owner":{"type":"string"}}}}}}`)}}}
		if _, err := reg.Register(Provider{Manifest: m, Query: answer}); err != nil {
			b.Fatal(err)
		}
		q := dynamic.InspectQueryInput{Platform: dynamic.InspectHost, Provider: "Slots", Method: "list", Input: in}
		ctx := as("s1")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := reg.Query(ctx, "s1", q); err != nil {
				b.Fatal(err)
			}
		}
	})
}
