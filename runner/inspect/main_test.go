package inspect

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// An env is a registry over a kit root, the host it serves.
type env struct {
	t    *testing.T
	root *kit.Context
	reg  *Registry
}

// newEnv returns a registry over clockCatalog (unless o names another catalog), closed and
// its root disposed when the test ends.
func newEnv(t *testing.T, o *Options) *env {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	if o.Catalog == nil {
		o.Catalog = clockCatalog()
	}
	root := kit.New(nil)
	t.Cleanup(func() { _ = root.Fiber().Dispose(context.Background()) })
	reg, err := New(func() *kit.Context { return root }, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return &env{t: t, root: root, reg: reg}
}

// as is a context of session, as a tool call of that session carries.
func as(session string) context.Context { return kit.WithSession(context.Background(), session) }

// inspectQuery is cordis_inspect_query as the runner makes it: for the session on ctx.
func (e *env) inspectQuery(ctx context.Context, in dynamic.InspectQueryInput) (dynamic.InspectQueryOutput, error) {
	session, _ := kit.SessionFrom(ctx)
	return e.reg.Query(ctx, session, in)
}
