package runner

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

var storm = flag.Bool("storm", false, "run the 20 s runner storm (default: about 1 s)")

// stormHost is a host half with a handler and a tool, so a run touches the handler table
// and the tool registry; %s makes each Package's source distinct.
const stormHost = `harness.handle('echo', (args) => ({ args, v: %q }));
return { name: 'storm', apply(ctx) {
	ctx.tools.register({ name: %q, description: 'storm tool', parameters: { type: 'object' }, execute: () => ({ v: %q }) })
} }`

func stormCode(tool, v string) string {
	return `{"host":` + jsonString(fmt.Sprintf(stormHost, v, tool, v)) + `}`
}

// TestStorm runs 16 goroutines over four sessions through the tool registry as a model
// calls it: each defines its own Plugins, runs, invokes, calls the half's tool, updates,
// stops and undefines them, and tries another session's; all of them also fight over one
// shared Plugin per session (run, update, stop, invoke at once). Afterwards the registry,
// the runner's group fiber and the tool registry are exactly as before, and no refusal
// but the ones a race explains was seen.
func TestStorm(t *testing.T) {
	d := time.Second
	if *storm && !testing.Short() {
		d = 20 * time.Second
	}
	e := newEnv(t, nil)
	tools, _ := kit.ToolsService.Get(e.root)
	s := &stormer{t: t, e: e, tools: tools}
	for i := range 4 {
		s.shared = append(s.shared, s.defineShared(fmt.Sprintf("storm-%d", i)))
	}
	before := s.state()

	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			session := fmt.Sprintf("storm-%d", g%4)
			for i := 0; time.Now().Before(deadline) && !t.Failed(); i++ {
				s.lifecycle(session, fmt.Sprintf("storm_%d_%d", g, i), i%2 == 0)
				s.contend(session, s.shared[g%4], g+i)
			}
		})
	}
	wg.Wait()
	for i, sh := range s.shared {
		if _, err := e.r.Stop(as(fmt.Sprintf("storm-%d", i)), dynamic.StopInput{PluginID: sh.id}); err != nil {
			t.Errorf("stop %s after the storm: %v", sh.id, err)
		}
	}
	if after := s.state(); after != before {
		t.Fatalf("the storm changed the runner:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	t.Logf("storm: %v, 16 goroutines, 4 sessions, %d lifecycles, %d contended ops, refusals %v", d, s.cycles.Load(), s.contended.Load(), s.refusalCounts())
}

// A stormer is the storm's shared state.
type stormer struct {
	t         *testing.T
	e         *env
	tools     *kit.Tools
	shared    []sharedPlugin
	cycles    atomic.Int64
	contended atomic.Int64

	mu       sync.Mutex
	refusals map[string]int
}

// sharedPlugin is a Plugin every goroutine of its session runs, updates and stops.
type sharedPlugin struct{ id, a, b string }

// call calls tool as session with args and decodes the result into out (when not nil).
func (s *stormer) call(session, tool, args string, out any) error {
	res, err := s.tools.Call(as(session), tool, json.RawMessage(args))
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		return fmt.Errorf("%s: decoding %s: %w", tool, res, err)
	}
	return nil
}

// must fails the test (from any goroutine) when err is not nil.
func (s *stormer) must(what string, err error) bool {
	if err != nil {
		s.t.Errorf("%s: %v", what, err)
		return false
	}
	return true
}

func (s *stormer) define(session, plugin, tool, v string) (dynamic.DefineOutput, error) {
	var out dynamic.DefineOutput
	err := s.call(session, "cordis_define", defineArgs(plugin, `"Storm"`, `"Storms."`, stormCode(tool, v)), &out)
	return out, err
}

func (s *stormer) run(session, id, pkg string, mode dynamic.Mode) (dynamic.RunOutput, error) {
	var out dynamic.RunOutput
	err := s.call(session, "cordis_run", fmt.Sprintf(`{"pluginId":%q,"packageId":%q,"mode":%q}`, id, pkg, mode), &out)
	return out, err
}

// invoke calls the live run's echo handler as Go code of the owning session does.
func (s *stormer) invoke(session, id string) (runID, capability string, res json.RawMessage, err error) {
	runID, capability, err = s.e.r.RunCapability(as(session), id)
	if err != nil {
		return "", "", nil, err
	}
	res, err = s.e.r.InvokeFromPanel(as(session), page.InvokeArgs{PluginID: id, PluginRunID: runID, Capability: capability, Method: "echo", Args: json.RawMessage(`{"n":1}`)})
	return runID, capability, res, err
}

// lifecycle is one Plugin's whole life, each step checked exactly: nothing else touches
// it but another session, which must find it absent.
func (s *stormer) lifecycle(session, tool string, stopFirst bool) {
	d, err := s.define(session, `{"kind":"new","idPrefix":"storm"}`, tool, "one")
	if !s.must("define", err) {
		return
	}
	id := d.PluginID
	out, err := s.run(session, id, d.PackageID, dynamic.ModeRun)
	if !s.must("run "+id, err) || out.Status != "running" || !slices.Equal(out.Host.Handlers, []string{"echo"}) {
		s.t.Errorf("run %s = %+v", id, out)
		return
	}
	var tv struct{ V string }
	if s.must("call "+tool, s.call(session, tool, `{}`, &tv)) && tv.V != "one" {
		s.t.Errorf("%s answered %q, want one", tool, tv.V)
	}
	oldRun, oldCap, res, err := s.invoke(session, id)
	if s.must("invoke "+id, err) && string(res) != `{"args":{"n":1},"v":"one"}` {
		s.t.Errorf("invoke %s = %s", id, res)
	}
	d2, err := s.define(session, fmt.Sprintf(`{"kind":"existing","pluginId":%q}`, id), tool, "two")
	if !s.must("define existing "+id, err) {
		return
	}
	if out, err := s.run(session, id, d2.PackageID, dynamic.ModeUpdate); !s.must("update "+id, err) || out.Status != "running" || out.CurrentPackageID != d2.PackageID {
		s.t.Errorf("update %s = %+v", id, out)
	}
	if _, err := s.e.r.InvokeFromPanel(as(session), page.InvokeArgs{PluginID: id, PluginRunID: oldRun, Capability: oldCap, Method: "echo"}); !hasCode(err, InvokeStaleRun) {
		s.t.Errorf("invoke of %s's old run %s = %v, want stale-run", id, oldRun, err)
	}
	if _, _, res, err := s.invoke(session, id); s.must("invoke updated "+id, err) && !strings.Contains(string(res), `"v":"two"`) {
		s.t.Errorf("invoke of updated %s = %s", id, res)
	}
	other := "storm-x" + session
	if err := s.call(other, "cordis_stop", fmt.Sprintf(`{"pluginId":%q}`, id), nil); ReasonOf(err) != ReasonPluginMissing {
		s.t.Errorf("%s stopping %s's %s = %v, want plugin-missing", other, session, id, err)
	}
	if stopFirst {
		s.must("stop "+id, s.call(session, "cordis_stop", fmt.Sprintf(`{"pluginId":%q}`, id), nil))
		if _, err := s.tools.Call(as(session), tool, json.RawMessage(`{}`)); !errors.Is(err, kit.ErrUnknownTool) {
			s.t.Errorf("%s after stop = %v, want unknown tool", tool, err)
		}
	}
	var u struct{ WasRunning bool }
	if s.must("undefine "+id, s.call(session, "cordis_undefine", fmt.Sprintf(`{"pluginId":%q}`, id), &u)) && u.WasRunning == stopFirst {
		s.t.Errorf("undefine %s: wasRunning = %v after stopFirst = %v", id, u.WasRunning, stopFirst)
	}
	s.cycles.Add(1)
}

// defineShared defines a session's shared Plugin with two Packages.
func (s *stormer) defineShared(session string) sharedPlugin {
	a, err := s.define(session, `{"kind":"new","idPrefix":"shared"}`, "shared_"+session[len("storm-"):], "a")
	if err != nil {
		s.t.Fatal(err)
	}
	b, err := s.define(session, fmt.Sprintf(`{"kind":"existing","pluginId":%q}`, a.PluginID), "shared_"+session[len("storm-"):], "b")
	if err != nil {
		s.t.Fatal(err)
	}
	return sharedPlugin{id: a.PluginID, a: a.PackageID, b: b.PackageID}
}

// contend does one verb on the session's shared Plugin, which other goroutines change at
// the same time: only the refusals such a race explains are allowed.
func (s *stormer) contend(session string, sh sharedPlugin, n int) {
	s.contended.Add(1)
	var err error
	switch n % 4 {
	case 0, 1: // restart the current Package, or switch to the other one
		p, perr := s.e.r.Store().Plugin(context.Background(), sh.id)
		if !s.must("read "+sh.id, perr) {
			return
		}
		pkg, mode := sh.a, dynamic.ModeRun
		if p.Current != "" {
			pkg = p.Current
		}
		if n%4 == 1 && p.Current != "" {
			pkg, mode = sh.a, dynamic.ModeUpdate
			if p.Current == sh.a {
				pkg = sh.b
			}
		}
		_, err = s.run(session, sh.id, pkg, mode)
	case 2:
		err = s.call(session, "cordis_stop", fmt.Sprintf(`{"pluginId":%q}`, sh.id), nil)
	case 3:
		var res json.RawMessage
		_, _, res, err = s.invoke(session, sh.id)
		if err == nil && !strings.Contains(string(res), `"args":{"n":1}`) {
			s.t.Errorf("invoke %s = %s", sh.id, res)
		}
	}
	s.allow(sh.id, err)
}

// allow counts a refusal a concurrent verb on the same Plugin explains and fails the test
// on any other error.
func (s *stormer) allow(id string, err error) {
	if err == nil {
		return
	}
	key := ""
	var ie *InvokeError
	switch {
	case errors.As(err, &ie) && (ie.Code == InvokePluginNotRunning || ie.Code == InvokeStaleRun):
		key = string(ie.Code) // the run changed between RunCapability and Invoke
	case slices.Contains([]Reason{ReasonTransitionInFlight, ReasonInvalidMode, ReasonNotRunning, ReasonCancelled}, ReasonOf(err)):
		key = string(ReasonOf(err)) // another start in flight, the pointer moved, a stop won
	default:
		s.t.Errorf("%s: unexpected error under contention: %v", id, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refusals == nil {
		s.refusals = map[string]int{}
	}
	s.refusals[key]++
}

func (s *stormer) refusalCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusals
}

// state is what the storm must leave as it found: every Plugin with its session,
// Packages and whether it runs (the shared Plugins' pointers move by design), the group
// fiber's children and the tool registry's tools with their owners.
func (s *stormer) state() string {
	var b strings.Builder
	ps, err := s.e.r.Store().Plugins(context.Background(), "")
	if err != nil {
		s.t.Fatal(err)
	}
	for _, p := range ps {
		pkgs := make([]string, 0, len(p.Packages))
		for _, k := range p.Packages {
			pkgs = append(pkgs, k.ID)
		}
		fmt.Fprintf(&b, "plugin %s of %s: %v running=%v\n", p.ID, p.Session, pkgs, p.Running)
	}
	s.e.r.mu.Lock()
	fmt.Fprintf(&b, "live entries: %d\n", len(s.e.r.live))
	s.e.r.mu.Unlock()
	for _, f := range s.e.r.group.Children() {
		fmt.Fprintf(&b, "group child %s\n", f.Name())
	}
	for _, t := range s.tools.Schemas() {
		owner, _ := s.tools.Owner(t.Name)
		fmt.Fprintf(&b, "tool %s of %s\n", t.Name, owner)
	}
	return b.String()
}
