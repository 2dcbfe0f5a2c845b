package pgstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/jackc/pgx/v5"
)

// TestReadoptAfterLoss: a runner that lost a session's lease (stolen in SQL, for a
// moment) stops its half, and once the other holder's lease expired adopts the session
// again and runs the half anew.
func TestReadoptAfterLoss(t *testing.T) {
	dsn := pgtest.DSN(t)
	execSQL(t, dsn, hostRuns)
	conn, err := pgx.Connect(bg, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(bg) })
	root := kit.New(nil)
	r, err := runner.New(root, &runner.Options{Store: open(t, dsn, &Options{LeaseTTL: 600 * time.Millisecond}), RestartAtBoot: true, Host: &recordingHost{conn: conn, who: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(bg, 30*time.Second)
		defer cancel()
		if err := errors.Join(r.Dispose(ctx), root.Fiber().Dispose(ctx)); err != nil {
			t.Error(err)
		}
	})
	ctx := kit.WithSession(bg, "alice")
	host := "return (ctx) => {}"
	d, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: dynamic.TargetNew, IDPrefix: "clock"}, Name: "Clock", Purpose: "Ticks.", Code: dynamic.Code{Host: &host}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	execSQL(t, dsn, "UPDATE cordis.leases SET owner = 'another process', expires = now() + interval '1 second'")
	eventually(t, "the half to run again after the stolen lease expired", func() bool {
		runs := readHostRuns(t, dsn, d.PluginID)
		return len(runs) == 2 && !runs[0].stopped.IsZero() && runs[1].stopped.IsZero()
	})
}
