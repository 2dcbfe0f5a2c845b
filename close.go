package cordiskit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Close shuts down everything New started, in the order of the package doc ("Closing"),
// and returns every failure joined, each naming its piece. ctx bounds every wait; when
// it ends, Close still takes every piece down and returns the context's error with the
// others. Close is safe to call more than once and from several goroutines at once:
// every call returns the first call's result once that is complete, or its own ctx's
// error if that ends first.
func (rt *Runtime) Close(ctx context.Context) error {
	rt.mu.Lock()
	if rt.closing {
		rt.mu.Unlock()
		select {
		case <-rt.closed:
			return rt.closeErr
		case <-ctx.Done():
			return fmt.Errorf("cordiskit: waiting for another Close: %w", ctx.Err())
		}
	}
	rt.closing = true
	for s := range rt.serves {
		s.cancel(ErrClosed)
	}
	if len(rt.serves) == 0 {
		close(rt.drained)
	}
	rt.mu.Unlock()
	rt.closeErr = rt.shutdown(ctx)
	close(rt.closed)
	return rt.closeErr
}

// shutdown takes down every piece that was started, consumers before what they use:
// the serves, the panel, the runner, the toolset, the runtime's tools and the invoker,
// the root New made, the store New opened.
func (rt *Runtime) shutdown(ctx context.Context) error {
	var errs []error
	step := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("cordiskit: closing %s: %w", what, err))
		}
	}
	select {
	case <-rt.drained:
	case <-ctx.Done():
		step("the MCP servers", fmt.Errorf("a serve has not returned: %w", ctx.Err()))
	}
	step("the panel", rt.closePanel(ctx))
	if rt.runner != nil {
		step("the runner", rt.runner.Dispose(ctx))
	}
	if rt.toolset != nil {
		step("the toolset", rt.toolset.Dispose(ctx))
	}
	if rt.tools != nil {
		step("the runtime's tools", rt.tools.Dispose(ctx))
	}
	if rt.inv != nil {
		step("the invoker", rt.inv.Close(ctx))
	}
	if rt.ownRoot {
		step("the root", rt.root.Fiber().Dispose(ctx))
	}
	if rt.store != nil {
		step("the runner's store", rt.store.Close())
	}
	return errors.Join(errs...)
}

// closePanel ends the panel's event streams, then its server, and waits for the server's
// goroutine; a listener the panel never served is only closed.
func (rt *Runtime) closePanel(ctx context.Context) error {
	var err error
	if rt.panel != nil {
		// The streams first: Shutdown waits for open requests, and a stream is one until
		// the handler ends it.
		err = rt.panel.Close(ctx)
	}
	switch {
	case rt.panelSrv != nil:
		if serr := rt.panelSrv.Shutdown(ctx); serr != nil {
			err = errors.Join(err, serr, rt.panelSrv.Close()) // ctx ended: cut what is left
		}
		if serr := <-rt.panelDone; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
	case rt.panelLn != nil:
		err = errors.Join(err, rt.panelLn.Close())
	}
	return err
}
