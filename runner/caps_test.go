package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// defineAs defines a Package for session on ref (host-only unless client is set).
func (e *env) defineAs(session string, ref dynamic.Target, client string) (dynamic.DefineOutput, error) {
	in := dynamic.DefineInput{Plugin: ref, Name: "Clock", Purpose: "Shows the time.", Code: dynamic.Code{Host: ptr(idleHost)}}
	if client != "" {
		in.Code = dynamic.Code{Client: ptr(client)}
	}
	return e.r.Define(as(session), in)
}

// mustDefineAs is defineAs that fails the test on error.
func (e *env) mustDefineAs(session string, ref dynamic.Target, client string) dynamic.DefineOutput {
	e.t.Helper()
	d, err := e.defineAs(session, ref, client)
	if err != nil {
		e.t.Fatalf("define for %s: %v", session, err)
	}
	return d
}

// holds returns the number of Plugins and Packages the store holds for session.
func (e *env) holds(session string) (plugins, packages int) {
	e.t.Helper()
	ls, err := e.r.Store().Listings(context.Background(), session)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, l := range ls {
		packages += l.PackageCount
	}
	return len(ls), packages
}

func pluginsCapText(n int) string {
	return fmt.Sprintf(`this session holds %d Plugins, the most it may hold (runner.Options.MaxPluginsPerSession); cordis_undefine one you no longer need (cordis_inspect_self lists yours), or add this Package to one of them with cordis_define plugin:{kind:"existing", pluginId}`, n)
}

func packagesCapText(packages, plugins int) string {
	return fmt.Sprintf(`this session holds %d Packages over its %d Plugins, the most it may hold (runner.Options.MaxPackagesPerSession); cordis_undefine a Plugin you no longer need to free its Packages (cordis_inspect_self lists each Plugin's packageCount)`, packages, plugins)
}

// refusedAt fails the test unless err is a cap refusal with exactly text.
func refusedAt(t *testing.T, what string, err error, text string) {
	t.Helper()
	if ReasonOf(err) != ReasonLimit || err.Error() != text {
		t.Fatalf("%s = %v (reason %q)\nwant the refusal %s", what, err, ReasonOf(err), text)
	}
}

// Session A at its Plugin cap is refused a new Plugin, recording nothing and consuming no
// id, while it may still add a Package to one of its Plugins; session B defines as if A
// did not exist; an undefine makes room again.
func TestPluginsPerSessionCap(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}, MaxPluginsPerSession: 3})
	var ids []string
	for range 3 {
		ids = append(ids, e.mustDefineAs("A", newPlugin("clock"), "").PluginID)
	}
	_, err := e.defineAs("A", newPlugin("clock"), "")
	refusedAt(t, "A's fourth Plugin", err, pluginsCapText(3))
	if n, _ := e.holds("A"); n != 3 {
		t.Fatalf("A holds %d Plugins after the refusal", n)
	}
	if d := e.mustDefineAs("B", newPlugin("clock"), ""); d.PluginID != "clock-4" {
		t.Fatalf("B's Plugin is %s; the refused define consumed an id", d.PluginID)
	}
	for range 2 {
		e.mustDefineAs("B", newPlugin("clock"), "")
	}
	e.mustDefineAs("A", existing(ids[0]), "") // a Package on a Plugin A holds
	if _, err := e.r.Undefine(as("A"), dynamic.UndefineInput{PluginID: ids[1]}); err != nil {
		t.Fatal(err)
	}
	e.mustDefineAs("A", newPlugin("clock"), "")
	if a, b := func() (int, int) { a, _ := e.holds("A"); b, _ := e.holds("B"); return a, b }(); a != 3 || b != 3 {
		t.Fatalf("A holds %d Plugins, B %d; want 3 each", a, b)
	}
}

// The Package cap counts a session's Packages over all its Plugins: past it neither a
// new Plugin nor a new version of one is recorded, another session is untouched, and
// undefining a Plugin frees its Packages.
func TestPackagesPerSessionCap(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}, MaxPackagesPerSession: 4})
	a := e.mustDefineAs("A", newPlugin("clock"), "")
	e.mustDefineAs("A", existing(a.PluginID), "")
	b := e.mustDefineAs("A", newPlugin("web"), "")
	e.mustDefineAs("A", existing(b.PluginID), "")
	_, err := e.defineAs("A", existing(a.PluginID), "")
	refusedAt(t, "A's fifth Package on an existing Plugin", err, packagesCapText(4, 2))
	_, err = e.defineAs("A", newPlugin("page"), "")
	refusedAt(t, "A's fifth Package on a new Plugin", err, packagesCapText(4, 2))
	if _, k := e.holds("A"); k != 4 {
		t.Fatalf("A holds %d Packages after the refusals", k)
	}
	c := e.mustDefineAs("B", newPlugin("clock"), "")
	for range 3 {
		e.mustDefineAs("B", existing(c.PluginID), "")
	}
	if _, err := e.r.Undefine(as("A"), dynamic.UndefineInput{PluginID: a.PluginID}); err != nil {
		t.Fatal(err)
	}
	e.mustDefineAs("A", existing(b.PluginID), "")
	e.mustDefineAs("A", newPlugin("page"), "")
}

// A session at its caps that names another session's Plugin learns nothing new: it is
// told the Plugin is not one of its own, as when it is under its caps, and the other
// session's Plugin gets no Package.
func TestCapsDoNotLeakOrReachAnotherSession(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}, MaxPluginsPerSession: 1, MaxPackagesPerSession: 1})
	victim := e.mustDefineAs("A", newPlugin("clock"), "")
	e.mustDefineAs("B", newPlugin("web"), "")
	_, err := e.defineAs("B", existing(victim.PluginID), "")
	if ReasonOf(err) != ReasonPluginMissing || err.Error() != missing(victim.PluginID).Error() {
		t.Fatalf("B's define on A's Plugin = %v; want the not-yours refusal", err)
	}
	if _, k := e.holds("A"); k != 1 {
		t.Fatalf("A's Plugin holds %d Packages after B's attempt", k)
	}
}

// Concurrent defines of one session cannot together overshoot a cap: exactly the cap's
// worth succeed and the rest are refused, while another session's defines all succeed.
func TestCapsHoldUnderConcurrentDefines(t *testing.T) {
	const plugins, packages, tries = 5, 12, 40
	e := newEnv(t, &Options{Host: &fakeHost{}, MaxPluginsPerSession: plugins, MaxPackagesPerSession: packages})
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, limited := map[string]int{}, map[string]int{}
	var other []error
	try := func(session string, ref dynamic.Target) {
		defer wg.Done()
		_, err := e.defineAs(session, ref, "")
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			ok[session]++
		case ReasonOf(err) == ReasonLimit:
			limited[session]++
		default:
			other = append(other, err)
		}
	}
	for range tries {
		wg.Add(2)
		go try("A", newPlugin("clock"))
		go try("B", newPlugin("clock"))
	}
	wg.Wait()
	if len(other) > 0 || ok["A"] != plugins || limited["A"] != tries-plugins || ok["B"] != plugins || limited["B"] != tries-plugins {
		t.Fatalf("new Plugins: ok %v, refused %v, other errors %v; want %d ok per session", ok, limited, other, plugins)
	}
	ls, err := e.r.Store().Listings(context.Background(), "A")
	if err != nil {
		t.Fatal(err)
	}
	first := e.mustDefineAs("A", existing(ls[0].ID), "")
	clear(ok)
	clear(limited)
	for range tries {
		wg.Add(1)
		go try("A", existing(first.PluginID))
	}
	wg.Wait()
	if n, k := e.holds("A"); len(other) > 0 || n != plugins || k != packages || ok["A"] != packages-plugins-1 {
		t.Fatalf("A holds %d Plugins and %d Packages (ok %v, other errors %v); want %d and %d", n, k, ok, other, plugins, packages)
	}
}

// pendingCapText is the refusal of a run request past the session's cap of n.
func pendingCapText(n int) string {
	return fmt.Sprintf("this session has %d run requests waiting for the Cordis panel, the most it may have (runner.Options.MaxPendingRequestsPerSession); wait for their outcomes (each arrives as a message), or cordis_stop a Plugin whose request you no longer need, then cordis_run again", n)
}

// A session with its cap of run requests waiting is refused one more (nothing is
// recorded on the Plugin), another session's requests are not, a person's direct run
// from the panel is neither refused nor counted, and a stop that cancels a request makes
// room.
func TestPendingRequestsPerSessionCap(t *testing.T) {
	e := newEnv(t, &Options{MaxPendingRequestsPerSession: 2})
	var ds []dynamic.DefineOutput
	for range 4 {
		ds = append(ds, e.mustDefineAs("A", newPlugin("page"), clientCode))
	}
	run := func(session string, d dynamic.DefineOutput) (dynamic.RunOutput, error) {
		return e.r.Run(as(session), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	}
	for _, d := range ds[:2] {
		if out, err := run("A", d); err != nil || out.Status != dynamic.StartAwaitingApproval {
			t.Fatalf("A's run of %s = %+v, %v", d.PluginID, out, err)
		}
	}
	_, err := run("A", ds[2])
	refusedAt(t, "A's third request", err, pendingCapText(2))
	if p := e.plugin(ds[2].PluginID); p.Latest != nil || p.Next != "" {
		t.Fatalf("the refused run left %+v on the Plugin", p)
	}
	b := e.mustDefineAs("B", newPlugin("page"), clientCode)
	if out, err := run("B", b); err != nil || out.Status != dynamic.StartAwaitingApproval {
		t.Fatalf("B's run while A is at its cap = %+v, %v", out, err)
	}
	// A person runs A's fourth Plugin from the panel: a gesture, not a model's request.
	h := e.r.RunHostHalf(context.Background(), page.RunHostHalfArgs{Session: "A", PluginID: ds[3].PluginID, PackageID: ds[3].PackageID, Mode: dynamic.ModeRun})
	if !h.OK {
		t.Fatalf("a direct run from the panel at the cap = %+v", h)
	}
	_, err = run("A", ds[2])
	refusedAt(t, "A's request after the direct run", err, pendingCapText(2))
	if _, err := e.r.Stop(as("A"), dynamic.StopInput{PluginID: ds[0].PluginID}); err != nil {
		t.Fatal(err)
	}
	if out, err := run("A", ds[2]); err != nil || out.Status != dynamic.StartAwaitingApproval {
		t.Fatalf("A's run after a stop made room = %+v, %v", out, err)
	}
}

// Concurrent runs of one session's gated Plugins cannot together overshoot the request
// cap: exactly the cap's worth wait for a page.
func TestPendingRequestsCapUnderConcurrentRuns(t *testing.T) {
	const capN, tries = 3, 12
	e := newEnv(t, &Options{MaxPendingRequestsPerSession: capN})
	var ds []dynamic.DefineOutput
	for range tries {
		ds = append(ds, e.mustDefineAs("A", newPlugin("page"), clientCode))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok, limited int
	var other []error
	for _, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.r.Run(as("A"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case ReasonOf(err) == ReasonLimit:
				limited++
			default:
				other = append(other, err)
			}
		}()
	}
	wg.Wait()
	if ok != capN || limited != tries-capN || len(other) > 0 {
		t.Fatalf("%d requests waiting, %d refused at the cap, other errors %v; want %d waiting", ok, limited, other, capN)
	}
	e.r.mu.Lock()
	n := 0
	for _, l := range e.r.live {
		if l.req != nil {
			n++
		}
	}
	e.r.mu.Unlock()
	if n != capN {
		t.Fatalf("%d requests are pending in the runner; want %d", n, capN)
	}
}

// Plugins a Store holds past a cap that was lowered since they were defined all stay,
// and keep working: only new definitions are refused, until undefines bring the session
// under the cap.
func TestRestoredPastALoweredCapStay(t *testing.T) {
	s := NewMemoryStore()
	ctx := context.Background()
	for range 5 {
		if _, _, err := s.Define(ctx, Definition{Session: "A", Prefix: "clock", Name: "Clock", Purpose: "p", Host: idleHost}); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, &Options{Store: s, Host: &fakeHost{}, MaxPluginsPerSession: 3})
	ls, err := listPlugins(e.r, as("A"))
	if err != nil || len(ls) != 5 {
		t.Fatalf("A lists %d Plugins (%v); want the 5 it held", len(ls), err)
	}
	_, err = e.defineAs("A", newPlugin("clock"), "")
	refusedAt(t, "a new Plugin past the lowered cap", err, pluginsCapText(5))
	if out, err := e.r.Run(as("A"), dynamic.RunInput{PluginID: "clock-5", PackageID: "pkg-5", Mode: dynamic.ModeRun}); err != nil || out.Status != "running" {
		t.Fatalf("running a Plugin held past the cap = %+v, %v", out, err)
	}
	e.mustDefineAs("A", existing("clock-5"), "")
	for _, id := range []string{"clock-1", "clock-2"} {
		if _, err := e.r.Undefine(as("A"), dynamic.UndefineInput{PluginID: id}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = e.defineAs("A", newPlugin("clock"), "")
	refusedAt(t, "a new Plugin at the cap", err, pluginsCapText(3))
	if _, err := e.r.Undefine(as("A"), dynamic.UndefineInput{PluginID: "clock-3"}); err != nil {
		t.Fatal(err)
	}
	e.mustDefineAs("A", newPlugin("clock"), "")
}

// With RestartAtBoot, Plugins that were running come back as run requests only up to the
// session's request cap: the others are kept, stopped, and their restart says why.
func TestBootRestartPastTheRequestCap(t *testing.T) {
	s := NewMemoryStore()
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		if _, _, err := s.Define(ctx, Definition{Session: "A", Prefix: "page", Name: "Page", Purpose: "p", Client: clientCode}); err != nil {
			t.Fatal(err)
		}
		id, pkg := fmt.Sprintf("page-%d", i), fmt.Sprintf("pkg-%d", i)
		if _, err := s.Update(ctx, id, Change{Current: ptr(pkg), Running: ptr(true), Attempt: &dynamic.Attempt{PluginRunID: fmt.Sprintf("run-%d", i), PackageID: pkg, Mode: dynamic.ModeRun,
			Status: dynamic.RunRunning, Host: dynamic.Half{Status: dynamic.HalfAbsent, WaitingFor: []string{}}, Client: dynamic.Half{Status: dynamic.HalfRunning, WaitingFor: []string{}}}}); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, &Options{Store: s, RestartAtBoot: true, MaxPendingRequestsPerSession: 2})
	for i, want := range []dynamic.StartStatus{dynamic.StartAwaitingApproval, dynamic.StartAwaitingApproval, dynamic.StartFailed} {
		id := fmt.Sprintf("page-%d", i+1)
		b, ok := e.r.BootRestart(id)
		if !ok || b.Status != want {
			t.Fatalf("%s's restart at boot = %+v, %v; want status %s", id, b, ok, want)
		}
		if want == dynamic.StartFailed && b.Error != pendingCapText(2) {
			t.Fatalf("%s's restart failed with %q; want the cap's refusal", id, b.Error)
		}
	}
	if n, _ := e.holds("A"); n != 3 {
		t.Fatalf("A holds %d Plugins after boot; want all 3", n)
	}
	if msgs := strings.Join(texts(e.r.Messages("A")), "\n"); !strings.Contains(msgs, "page-3: page-3 was running pkg-3 when the runtime stopped; restarting it at boot failed: "+pendingCapText(2)) {
		t.Fatalf("the session was not told why page-3 did not restart:\n%s", msgs)
	}
}
