package panel_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/panel"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// A runtime author drives the approval of a run request from Go, as a person's page
// would: the request arrives on the event stream with its ticket, runHostHalf approves
// it and starts the host half, and the page that started the run says how loading the
// client half went.
func ExampleClient_approve() {
	ctx := context.Background()
	root := kit.New(nil)
	r, err := runner.New(root, nil)
	if err != nil {
		panic(err)
	}
	h, err := panel.New(r, nil)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		_ = h.Close(ctx)
		_ = r.Dispose(ctx)
		_ = root.Fiber().Dispose(ctx)
	}()

	c, err := panel.NewClient(srv.URL, h.Token(), nil) // the operator's token: every session
	if err != nil {
		panic(err)
	}
	events, err := c.Events(ctx, "")
	if err != nil {
		panic(err)
	}
	defer events.Close()
	next := func() panel.Payload {
		ev, err := events.Next()
		if err != nil {
			panic(err)
		}
		return ev.Payload
	}
	if hello, ok := next().(panel.Connected); ok {
		fmt.Println("connected, resumed:", hello.Resumed)
	}

	// Session alice's model defines a Plugin with a client half and runs it: it waits
	// for a person's approval.
	alice := kit.WithSession(ctx, "alice")
	d, err := r.Define(alice, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "clock"}, Name: "Clock",
		Purpose: "Shows the time.", Code: dynamic.Code{Client: ptrTo(`return (ctx) => {}`)}})
	if err != nil {
		panic(err)
	}
	if _, err := r.Run(alice, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		panic(err)
	}

	var q panel.RequestRun
	for q.RequestID == "" {
		q, _ = next().(panel.RequestRun)
	}
	fmt.Printf("%s asks to run %s (%s), approval needed: %v\n", q.Session, q.PluginID, q.Name, q.RequiresApproval)

	// Approve it, and start the host half.
	hh, err := c.RunHostHalf(ctx, page.RunHostHalfArgs{Session: q.Session, PluginID: q.PluginID, PackageID: q.PackageID,
		Mode: q.Mode, RequestID: q.RequestID, Ticket: q.Ticket})
	if err != nil {
		panic(err)
	}
	fmt.Println("started here:", hh.OK && hh.StartedHere)

	// A page would load the client half now (getClientCode) and report how it went.
	code, err := c.GetClientCode(ctx, page.ClientCodeArgs{Session: q.Session, PluginID: q.PluginID, PluginRunID: hh.PluginRunID})
	if err != nil {
		panic(err)
	}
	fmt.Println("client half:", code.Code)
	acc, err := c.ResolveRequestRun(ctx, page.ResolveArgs{RequestID: q.RequestID,
		Resolution: page.Resolution{OK: true, PluginRunID: hh.PluginRunID, Token: hh.Token}})
	if err != nil {
		panic(err)
	}
	fmt.Println("accepted:", acc.Accepted.Accepted)
	for {
		if res, ok := next().(panel.RequestRunResolved); ok {
			fmt.Println("outcome:", res.Outcome)
			break
		}
	}
	// Output:
	// connected, resumed: false
	// alice asks to run clock-1 (Clock), approval needed: true
	// started here: true
	// client half: return (ctx) => {}
	// accepted: true
	// outcome: approved
}

func ptrTo[T any](v T) *T { return &v }
