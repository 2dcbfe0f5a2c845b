package toolset_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/toolset"
)

// notesDoc is a service comment of several sentences and paragraphs, as go/doc gives it.
const notesDoc = `Notes keeps short notes, e.g. reminders, for the session. Its methods are
synchronous.

Store structured values as JSON text.`

// TestInspectAPINameShowsFullDoc checks that cordis_inspect {what:"api", name} shows a
// service's whole doc comment — every sentence and paragraph — and the broad form only
// its summary.
func TestInspectAPINameShowsFullDoc(t *testing.T) {
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer root.Fiber().Dispose(context.Background())
	cat := &catalog.Catalog{Services: []catalog.Service{{
		Key: "notes", Doc: notesDoc,
		Summary: "Notes keeps short notes, e.g. reminders, for the session.",
		Methods: []catalog.Method{{
			Name: "Add", JSName: "add", Doc: "Add appends a note.", Signature: "add(text: string): void",
		}},
	}}}
	ts, err := toolset.New(root, &toolset.Options{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Dispose(context.Background())
	if err := root.Provide("notes", struct{}{}); err != nil {
		t.Fatal(err)
	}
	tools, _ := kit.ToolsService.Get(root)
	inspect := func(args string) string {
		t.Helper()
		out, err := tools.Call(context.Background(), "cordis_inspect", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		var s string
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}

	want := `## api
- notes — Notes keeps short notes, e.g. reminders, for the session.
    // Notes keeps short notes, e.g. reminders, for the session. Its methods are
    // synchronous.
    //
    // Store structured values as JSON text.

    // Add appends a note.
    add(text: string): void`
	if got := inspect(`{"what":"api","name":"notes"}`); got != want {
		t.Errorf("named api section:\n%s\nwant:\n%s", got, want)
	}
	broad := inspect(`{"what":"api"}`)
	if !strings.Contains(broad, "- notes — Notes keeps short notes, e.g. reminders, for the session.\n    add(text: string): void") {
		t.Errorf("broad api section lacks the notes summary line:\n%s", broad)
	}
	if strings.Contains(broad, "Its methods are") || strings.Contains(broad, "// Add appends") {
		t.Errorf("broad api section shows the notes doc comments, want its summary only:\n%s", broad)
	}
}
