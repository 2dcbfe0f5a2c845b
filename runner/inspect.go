package runner

import (
	"context"
	"fmt"

	"github.com/cordiskit/cordiskit/runner/inspect"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The inspect registry is its own package (runner/inspect): the providers are described
// there and the registry runs them, as go/analysis describes an Analyzer and a driver runs
// it. The Runner holds one per process and keeps this seam: the two model-facing tools
// that read it, and Inspect for a runtime's providers and the pages' manifests.

// initInspect builds the inspect registry over cat merged with the kit's core tier, with
// the first-party host providers.
func (r *Runner) initInspect(o Options) error {
	reg, err := inspect.New(r.ctx, &inspect.Options{Catalog: o.Catalog, QueryTimeout: o.InspectQueryTimeout, MaxMethods: o.MaxInspectMethods})
	if err != nil {
		return fmt.Errorf("runner: %w", err)
	}
	r.inspect = reg
	return nil
}

// Inspect returns the runner's inspect registry: Register adds a host provider of the
// runtime's; the panel connects pages to it and passes on their manifests and answers.
func (r *Runner) Inspect() *inspect.Registry { return r.inspect }

// InspectList is cordis_inspect_list (inspect.Registry.List). It needs no session and never
// fails.
func (r *Runner) InspectList(ctx context.Context, _ dynamic.InspectListInput) (dynamic.InspectListOutput, error) {
	return r.inspect.List(), nil
}

// InspectQuery is cordis_inspect_query for the session on ctx (inspect.Registry.Query).
func (r *Runner) InspectQuery(ctx context.Context, in dynamic.InspectQueryInput) (dynamic.InspectQueryOutput, error) {
	session, err := r.session(ctx)
	if err != nil {
		return dynamic.InspectQueryOutput{}, err
	}
	return r.inspect.Query(ctx, session, in)
}
