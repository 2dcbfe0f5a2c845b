package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// TestRunnerRestart runs a Plugin on a runner over the file, shuts it all down, and boots
// a new runner on the reopened file with RestartAtBoot: the Plugin runs again, for the
// same session, and ids continue.
func TestRunnerRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	ctx := kit.WithSession(context.Background(), "client-a")
	host := "return (ctx) => {}"

	boot := func(t *testing.T, restart bool) (*runner.Runner, func()) {
		s, err := Open(bg, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		root := kit.New(nil)
		r, err := runner.New(root, &runner.Options{Store: s, RestartAtBoot: restart})
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

	r, shutdown := boot(t, true)
	d, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "clock"}, Name: "Clock", Purpose: "Shows the time.", Code: dynamic.Code{Host: &host}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil || out.Status != "running" {
		t.Fatalf("run: %+v %v", out, err)
	}
	if got := selfList(t, ctx, r); len(got) != 1 || got[0].Restored || got[0].BootRestart != nil {
		t.Fatalf("cordis_inspect_self before any restart: %+v, want clock-1 neither restored nor restarted", got)
	}
	shutdown()

	r, shutdown = boot(t, true)
	b, ok := r.BootRestart("clock-1")
	if !ok || b != (dynamic.BootRestart{PackageID: "pkg-1", PluginRunID: "run-2", Status: "running"}) {
		t.Fatalf("BootRestart = %+v, %v; want pkg-1 restarted as run-2", b, ok)
	}
	list := selfList(t, ctx, r)
	if len(list) != 1 || list[0].PluginID != "clock-1" || list[0].ActiveRun == nil || list[0].ActiveRun.PluginRunID != "run-2" {
		t.Fatalf("the same session after the restart lists %+v, want clock-1 running as run-2", list)
	}
	if p, _ := r.Store().Plugin(bg, "clock-1"); !p.Restored || !p.Running {
		t.Fatalf("clock-1 after the restart: restored %v, running %v", p.Restored, p.Running)
	}
	d2, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "clock"}, Name: "Clock", Purpose: "Another.", Code: dynamic.Code{Host: &host}})
	if err != nil || d2.PluginID != "clock-2" || d2.PackageID != "pkg-2" {
		t.Fatalf("define after the restart: %+v %v, want clock-2 pkg-2", d2, err)
	}
	if msgs := r.Messages("client-a"); len(msgs) != 1 || msgs[0].Text != "clock-1 was running pkg-1 when the runtime stopped and was restarted at boot as run-2 (status running)." {
		t.Fatalf("messages kept for the session: %+v", msgs)
	}
	got := selfList(t, ctx, r)
	if len(got) != 2 || !got[0].Restored || got[0].BootRestart == nil ||
		*got[0].BootRestart != (dynamic.BootRestart{PackageID: "pkg-1", PluginRunID: "run-2", Status: "running"}) {
		t.Fatalf("cordis_inspect_self after a restart at boot: %+v, want clock-1 restored and restarted as run-2", got)
	}
	if got[1].Restored || got[1].BootRestart != nil {
		t.Fatalf("cordis_inspect_self lists clock-2, defined after the restart, as %+v", got[1])
	}
	shutdown()

	// Without RestartAtBoot the Plugins are restored and stay stopped: restored, no bootRestart.
	r, shutdown = boot(t, false)
	defer shutdown()
	got = selfList(t, ctx, r)
	if len(got) != 2 || !got[0].Restored || !got[1].Restored || got[0].BootRestart != nil || got[0].State != dynamic.PluginStopped || got[0].ActiveRun != nil {
		t.Fatalf("cordis_inspect_self after a boot without RestartAtBoot: %+v, want both restored, clock-1 stopped and not restarted", got)
	}
}

// selfList calls the cordis_inspect_self tool as the session on ctx and returns its
// listing.
func selfList(t *testing.T, ctx context.Context, r *runner.Runner) []dynamic.PluginSummary {
	t.Helper()
	for _, tool := range r.Tools() {
		if tool.Name != dynamic.InspectSelf.Name() {
			continue
		}
		raw, err := tool.Execute(ctx, json.RawMessage(`{}`))
		if err != nil {
			t.Fatalf("cordis_inspect_self: %v", err)
		}
		var out dynamic.InspectSelfOutput
		if err := json.Unmarshal(raw, &out); err != nil || out.Plugins == nil {
			t.Fatalf("cordis_inspect_self returned %s (%v)", raw, err)
		}
		return *out.Plugins
	}
	t.Fatal("the runner has no cordis_inspect_self tool")
	return nil
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
	if _, err := r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "new", IDPrefix: "clock"}, Name: "Clock", Purpose: "p", Code: dynamic.Code{Host: &host}}); err != nil {
		t.Fatal(err)
	}
	before := selfList(t, ctx, r)
	var pages int64
	if err := s.conn.QueryRowContext(bg, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.conn.ExecContext(bg, "PRAGMA max_page_count = "+strconv.FormatInt(pages, 10)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 64<<10)
	_, err = r.Define(ctx, dynamic.DefineInput{Plugin: dynamic.Target{Kind: "existing", PluginID: "clock-1"}, Name: "Clock", Purpose: "p", Code: dynamic.Code{Host: &big}})
	if err == nil || !strings.HasPrefix(err.Error(), "sqlstore: could not record a define in "+s.Path()+": database or disk is full") {
		t.Fatalf("define on a full file: %v", err)
	}
	if after := selfList(t, ctx, r); !reflect.DeepEqual(after, before) {
		t.Fatalf("a failed define changed the registry: %+v, was %+v", after, before)
	}
}
