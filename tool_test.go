package cordiskit_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/internal/helpdesk"
	"github.com/cordiskit/cordiskit/internal/helpdesk/cordisapi"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/google/go-cmp/cmp"
)

// AddTool is one call from the catalogued declaration to a tool the model sees: the
// catalog's description and schemas, the Go function behind it.
func TestAddTool(t *testing.T) {
	ctx := context.Background()
	rt, err := cordiskit.New(nil, &cordiskit.Options{Catalog: cordisapi.Catalog, Facade: cordisapi.Facade})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	var got helpdesk.Ticket
	err = cordiskit.AddTool(rt, helpdesk.OpenTicket, func(_ context.Context, in helpdesk.Ticket) (helpdesk.TicketNumber, error) {
		got = in
		return helpdesk.TicketNumber{Number: 7}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ct, ok := cordisapi.Catalog.Tool("open_ticket")
	if !ok {
		t.Fatal("the helpdesk catalog has no open_ticket")
	}
	want := kit.ToolSchema{Name: "open_ticket", Description: ct.Doc, InputSchema: ct.InputSchema, OutputSchema: ct.OutputSchema}
	var listed []kit.ToolSchema
	for _, s := range rt.Invoker().ToolsFor("ada") {
		if s.Name == "open_ticket" {
			listed = append(listed, s)
		}
	}
	if diff := cmp.Diff([]kit.ToolSchema{want}, listed); diff != "" {
		t.Errorf("open_ticket as the model sees it (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(want.Description, "OpenTicket files a ticket") {
		t.Errorf("the description %q is not the declaration's doc comment", want.Description)
	}
	out, err := rt.Invoker().InvokeSession(ctx, "ada", "open_ticket", json.RawMessage(`{"subject":"no sound"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(helpdesk.Ticket{Subject: "no sound"}, got); diff != "" {
		t.Errorf("the function received (-want +got):\n%s", diff)
	}
	if string(out) != `{"number":7}` {
		t.Errorf("open_ticket = %s; want the function's result", out)
	}
	// The arguments are checked against the catalog's schema before the function runs.
	if _, err := rt.Invoker().InvokeSession(ctx, "ada", "open_ticket", json.RawMessage(`{"subject":3}`)); err == nil || !strings.Contains(err.Error(), "subject") {
		t.Errorf("open_ticket with a number as subject: %v; want an error naming subject", err)
	}
	// A second registration under the name is refused.
	if err := cordiskit.AddTool(rt, helpdesk.OpenTicket, fileTicket); !errors.Is(err, kit.ErrDuplicate) {
		t.Errorf("AddTool twice: %v; want kit.ErrDuplicate", err)
	}
}

// stale declares open_ticket with other types than the catalog records: a catalog
// generated before the declaration changed.
var stale = kit.NewTool[struct{ Title string }, helpdesk.TicketNumber]("open_ticket")

// unknown is a tool the catalog never saw.
var unknown = kit.NewTool[helpdesk.Ticket, helpdesk.TicketNumber]("close_ticket")

func TestAddToolRefuses(t *testing.T) {
	ctx := context.Background()
	rt, err := cordiskit.New(nil, &cordiskit.Options{Catalog: cordisapi.Catalog})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		add  func() error
		want string
	}{
		{"stale catalog", func() error {
			return cordiskit.AddTool(rt, stale, func(context.Context, struct{ Title string }) (helpdesk.TicketNumber, error) {
				return helpdesk.TicketNumber{}, nil
			})
		}, "run go generate"},
		{"not in the catalog", func() error { return cordiskit.AddTool(rt, unknown, fileTicket) }, "is not in the catalog"},
		{"no function", func() error { return cordiskit.AddTool(rt, helpdesk.OpenTicket, nil) }, "the function that runs it"},
	} {
		if err := tc.add(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: AddTool = %v; want it to say %q", tc.name, err, tc.want)
		}
	}
	if got := names(rt.Invoker().Tools()); len(got) != len(cordisTools) {
		t.Errorf("refused registrations left tools behind: %v", got)
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cordiskit.AddTool(rt, helpdesk.OpenTicket, fileTicket); !errors.Is(err, cordiskit.ErrClosed) {
		t.Errorf("AddTool after Close = %v; want ErrClosed", err)
	}
}
