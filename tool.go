package cordiskit

import (
	"context"
	"errors"
	"fmt"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl"
)

// AddTool registers the tool d declares as one of rt's own, run by fn: the one call that
// turns a Go declaration catalogued by gen-cordis-api into a tool the model sees.
//
//	// OpenTicket files a ticket for the user's problem and returns its number.
//	var OpenTicket = kit.NewTool[Ticket, TicketNumber]("open_ticket")
//
//	err := cordiskit.AddTool(rt, helpdesk.OpenTicket, openTicket)
//
// Its description is the declaration's doc comment and its input and output JSON
// Schemas are derived from In and Out, all read from rt's catalog (Options.Catalog):
// the arguments a call passes are validated against that schema (invoke, mcpkit) before
// they are decoded, strictly, into In (a field In lacks is refused: tooldecl.Bind). A tool the catalog does not hold, or holds with other input
// or output types (a catalog generated before the declaration changed), is an error
// that says to run go generate, as is a name another tool holds. Every session sees the
// tool; Close removes it. It fails with ErrClosed once Close has begun.
//
// A tool that belongs to a plugin of the runtime's, and goes with it, is registered in
// the plugin's Apply with tooldecl.Bind and the tools service.
func AddTool[In, Out any](rt *Runtime, d *kit.ToolDecl[In, Out], fn func(ctx context.Context, in In) (Out, error)) error {
	if rt == nil || d == nil || fn == nil {
		return errors.New("cordiskit: AddTool needs the Runtime, the tool's declaration (var X = kit.NewTool[In, Out](name)) and the function that runs it")
	}
	rt.mu.Lock()
	closing := rt.closing
	rt.mu.Unlock()
	if closing {
		return ErrClosed
	}
	tool, err := tooldecl.Bind(rt.cat, d, fn)
	if err != nil {
		return fmt.Errorf("cordiskit: AddTool: %w", err)
	}
	c := rt.tools.Context()
	tools, ok := kit.ToolsService.Get(c)
	if !ok {
		return fmt.Errorf("cordiskit: AddTool %q: the runtime has no tools registry", d.Name())
	}
	if _, err := tools.Register(c, tool); err != nil {
		return fmt.Errorf("cordiskit: AddTool: %w", err)
	}
	return nil
}
