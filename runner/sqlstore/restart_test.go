package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
)

// TestRunnerRestart runs a Plugin on a runner over the file, shuts it all down, and boots
// a new runner on the reopened file with RestartAtBoot: the Plugin runs again, for the
// same session, and ids continue.
func TestRunnerRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	ctx := kit.WithSession(context.Background(), "client-a")
	host := "return (ctx) => {}"

	boot := func(t *testing.T) (*runner.Runner, func()) {
		s, err := Open(bg, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		root := kit.New(nil)
		r, err := runner.New(root, &runner.Options{Store: s, RestartAtBoot: true})
		if err != nil {
			t.Fatal(err)
		}
		return r, func() {
			dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := r.Dispose(dctx); err != nil {
				t.Error(err)
			}
			if err := root.Fiber().Dispose(dctx); err != nil {
				t.Error(err)
			}
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}
	}

	r, shutdown := boot(t)
	d, err := r.Define(ctx, runner.DefineInput{Plugin: runner.PluginRef{Kind: "new", IDPrefix: "clock"}, Name: "Clock", Purpose: "Shows the time.", Code: runner.Code{Host: &host}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(ctx, runner.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: runner.ModeRun})
	if err != nil || out.Status != "running" {
		t.Fatalf("run: %+v %v", out, err)
	}
	shutdown()

	r, shutdown = boot(t)
	defer shutdown()
	b, ok := r.BootRestart("clock-1")
	if !ok || b != (runner.BootRestart{PackageID: "pkg-1", PluginRunID: "run-2", Status: "running"}) {
		t.Fatalf("BootRestart = %+v, %v; want pkg-1 restarted as run-2", b, ok)
	}
	list, err := r.ListPlugins(ctx)
	if err != nil || len(list) != 1 || list[0].PluginID != "clock-1" || list[0].ActiveRun == nil || list[0].ActiveRun.PluginRunID != "run-2" {
		t.Fatalf("the same session after the restart lists %+v (%v), want clock-1 running as run-2", list, err)
	}
	if p, _ := r.Store().Plugin(bg, "clock-1"); !p.Restored || !p.Running {
		t.Fatalf("clock-1 after the restart: restored %v, running %v", p.Restored, p.Running)
	}
	d2, err := r.Define(ctx, runner.DefineInput{Plugin: runner.PluginRef{Kind: "new", IDPrefix: "clock"}, Name: "Clock", Purpose: "Another.", Code: runner.Code{Host: &host}})
	if err != nil || d2.PluginID != "clock-2" || d2.PackageID != "pkg-2" {
		t.Fatalf("define after the restart: %+v %v, want clock-2 pkg-2", d2, err)
	}
	if msgs := r.Messages("client-a"); len(msgs) != 1 || msgs[0].Text != "clock-1 was running pkg-1 when the runtime stopped and was restarted at boot as run-2 (status running)." {
		t.Fatalf("messages kept for the session: %+v", msgs)
	}
}

// TestRunnerFailedWrite: when the file is full, cordis_define and cordis_run fail with
// the reason, and the registry the runner reads is what it was.
func TestRunnerFailedWrite(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "definitions.db"), nil)
	root := kit.New(nil)
	r, err := runner.New(root, &runner.Options{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := errors.Join(r.Dispose(bg), root.Fiber().Dispose(bg)); err != nil {
			t.Error(err)
		}
	}()
	ctx := kit.WithSession(context.Background(), "s1")
	host := "return (ctx) => {}"
	if _, err := r.Define(ctx, runner.DefineInput{Plugin: runner.PluginRef{Kind: "new", IDPrefix: "clock"}, Name: "Clock", Purpose: "p", Code: runner.Code{Host: &host}}); err != nil {
		t.Fatal(err)
	}
	before, _ := r.ListPlugins(ctx)
	var pages int64
	if err := s.conn.QueryRowContext(bg, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.conn.ExecContext(bg, "PRAGMA max_page_count = "+strconv.FormatInt(pages, 10)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 64<<10)
	_, err = r.Define(ctx, runner.DefineInput{Plugin: runner.PluginRef{Kind: "existing", PluginID: "clock-1"}, Name: "Clock", Purpose: "p", Code: runner.Code{Host: &big}})
	if err == nil || !strings.HasPrefix(err.Error(), "sqlstore: could not record a define in "+s.Path()+": database or disk is full") {
		t.Fatalf("define on a full file: %v", err)
	}
	if after, _ := r.ListPlugins(ctx); !reflect.DeepEqual(after, before) {
		t.Fatalf("a failed define changed the registry: %+v, was %+v", after, before)
	}
}
