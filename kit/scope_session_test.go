package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/google/go-cmp/cmp"
)

// callPayload is a session-scoped payload: what a gate sees of one tool call.
type callPayload struct {
	Session kit.Session
	Secret  string
}

// heard records which plugin heard which secret.
type heard struct {
	mu  sync.Mutex
	got []string
}

func (h *heard) add(who, what string) {
	h.mu.Lock()
	h.got = append(h.got, who+":"+what)
	h.mu.Unlock()
}

func (h *heard) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.got
	h.got = nil
	slices.Sort(out)
	return out
}

// listenAs starts a plugin of session (or the runtime's own, for "") whose apply registers
// listeners with on.
func listenAs(t *testing.T, root *kit.Context, name, session string, on func(c *kit.Context) error) *kit.Fiber {
	t.Helper()
	f := root.Plugin(&kit.Plugin{Name: name, Session: session, Apply: on})
	if err := f.Err(); err != nil {
		t.Fatalf("plugin %s: %v", name, err)
	}
	if got := f.Session(); got != session {
		t.Fatalf("plugin %s: Session() = %q, want %q", name, got, session)
	}
	return f
}

// TestScopedEventReachesOnlyItsSession: for every dispatch mode, an emit whose payload
// names session A reaches A's listeners and the runtime's own, never B's; an emit with an
// empty session is runtime-wide.
func TestScopedEventReachesOnlyItsSession(t *testing.T) {
	ctx := context.Background()
	emitEv := kit.NewEvent[callPayload]("test/scoped-emit")
	parEv := kit.NewParallel[callPayload]("test/scoped-parallel")
	serEv := kit.NewSerial[callPayload, bool]("test/scoped-serial")
	bailEv := kit.NewBail[callPayload, bool]("test/scoped-bail")
	fallEv := kit.NewWaterfall[callPayload, string]("test/scoped-waterfall")
	for _, ev := range []interface{ Scoped() bool }{emitEv, parEv, serEv, bailEv, fallEv} {
		if !ev.Scoped() {
			t.Fatalf("%T with a kit.Session field: Scoped() = false", ev)
		}
	}

	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	var h heard
	register := func(who string) func(c *kit.Context) error {
		return func(c *kit.Context) error {
			_, err1 := emitEv.On(c, func(p callPayload) { h.add(who, "emit "+p.Secret) })
			_, err2 := parEv.On(c, func(_ context.Context, p callPayload) error { h.add(who, "parallel "+p.Secret); return nil })
			_, err3 := serEv.On(c, func(_ context.Context, p callPayload) (bool, error) {
				h.add(who, "serial "+p.Secret)
				return false, nil
			})
			_, err4 := bailEv.On(c, func(p callPayload) bool { h.add(who, "bail "+p.Secret); return false })
			_, err5 := fallEv.On(c, func(_ context.Context, p callPayload, next func() (string, error)) (string, error) {
				h.add(who, "waterfall "+p.Secret)
				return next()
			})
			return errors.Join(err1, err2, err3, err4, err5)
		}
	}
	listenAs(t, root, "runtime", "", register("runtime"))
	listenAs(t, root, "a", "alice", register("alice"))
	listenAs(t, root, "b", "bob", register("bob"))

	emitAll := func(p callPayload) {
		emitEv.Emit(root, p)
		if err := parEv.Emit(ctx, root, p); err != nil {
			t.Fatal(err)
		}
		if _, err := serEv.Emit(ctx, root, p); err != nil {
			t.Fatal(err)
		}
		bailEv.Emit(root, p)
		if _, err := fallEv.Emit(ctx, root, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	modes := []string{"emit", "parallel", "serial", "bail", "waterfall"}
	want := func(secret string, who ...string) []string {
		var out []string
		for _, w := range who {
			for _, m := range modes {
				out = append(out, w+":"+m+" "+secret)
			}
		}
		slices.Sort(out)
		return out
	}

	emitAll(callPayload{Session: "alice", Secret: "pw-a"})
	if diff := cmp.Diff(want("pw-a", "alice", "runtime"), h.take()); diff != "" {
		t.Errorf("alice's emit reached (-want +got):\n%s", diff)
	}
	emitAll(callPayload{Session: "bob", Secret: "pw-b"})
	if diff := cmp.Diff(want("pw-b", "bob", "runtime"), h.take()); diff != "" {
		t.Errorf("bob's emit reached (-want +got):\n%s", diff)
	}
	emitAll(callPayload{Session: "carol", Secret: "pw-c"})
	if diff := cmp.Diff(want("pw-c", "runtime"), h.take()); diff != "" {
		t.Errorf("an emit for a session with no listeners reached (-want +got):\n%s", diff)
	}
	emitAll(callPayload{Secret: "shutdown"})
	if diff := cmp.Diff(want("shutdown", "alice", "bob", "runtime"), h.take()); diff != "" {
		t.Errorf("a runtime-wide emit (empty Session) reached (-want +got):\n%s", diff)
	}
}

// TestScopedWaterfallFailureStaysInItsSession: a session's throwing gate listener fails
// its own session's calls, never another session's.
func TestScopedWaterfallFailureStaysInItsSession(t *testing.T) {
	ctx := context.Background()
	gate := kit.NewWaterfall[callPayload, string]("test/gate")
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	listenAs(t, root, "buggy", "bob", func(c *kit.Context) error {
		_, err := gate.On(c, func(context.Context, callPayload, func() (string, error)) (string, error) {
			return "", errors.New("listener bug")
		})
		return err
	})
	listenAs(t, root, "veto", "bob", func(c *kit.Context) error {
		_, err := gate.On(c, func(context.Context, callPayload, func() (string, error)) (string, error) { return "vetoed", nil })
		return err
	})
	allow := func() (string, error) { return "allowed", nil }
	got, err := gate.Emit(ctx, root, callPayload{Session: "alice"}, allow)
	if err != nil || got != "allowed" {
		t.Errorf("alice's call = %q, %v; want allowed, nil (bob's listeners must not run)", got, err)
	}
	if _, err := gate.Emit(ctx, root, callPayload{Session: "bob"}, allow); err == nil || !strings.Contains(err.Error(), "listener bug") {
		t.Errorf("bob's own call: err = %v, want bob's listener's failure", err)
	}
}

// TestUnscopedAwaitedEmitFollowsTheCallerSession: an event without a Session field,
// emitted with a session on ctx, reaches that session's listeners and the runtime's only.
func TestUnscopedAwaitedEmitFollowsTheCallerSession(t *testing.T) {
	ctx := context.Background()
	ev := kit.NewSerial[string, bool]("test/unscoped")
	if ev.Scoped() {
		t.Fatal("an event whose payload is a string reports Scoped")
	}
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	var h heard
	for _, s := range []string{"", "alice", "bob"} {
		listenAs(t, root, "l-"+s, s, func(c *kit.Context) error {
			_, err := ev.On(c, func(_ context.Context, p string) (bool, error) { h.add("l-"+s, p); return false, nil })
			return err
		})
	}
	if _, err := ev.Emit(kit.WithSession(ctx, "alice"), root, "x"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"l-:x", "l-alice:x"}, h.take()); diff != "" {
		t.Errorf("emit for alice reached (-want +got):\n%s", diff)
	}
	if _, err := ev.Emit(ctx, root, "y"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"l-:y", "l-alice:y", "l-bob:y"}, h.take()); diff != "" {
		t.Errorf("emit without a session reached (-want +got):\n%s", diff)
	}
}

// TestSessionServices: a service a session provides is that session's; another session
// neither gets it nor loads on it, and cannot learn of it by providing the same key.
func TestSessionServices(t *testing.T) {
	ctx := context.Background()
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	listenAs(t, root, "a-provider", "alice", func(c *kit.Context) error { return c.Provide("notes", "alice's notes") })

	aUser := root.Plugin(&kit.Plugin{Name: "a-user", Session: "alice", Inject: []string{"notes"}, Apply: func(*kit.Context) error { return nil }})
	if st := aUser.State(); st != kit.StateActive {
		t.Errorf("alice's plugin injecting alice's service: state %v, want active", st)
	}
	bUser := root.Plugin(&kit.Plugin{Name: "b-user", Session: "bob", Inject: []string{"notes"}, Apply: func(*kit.Context) error { return nil }})
	if st, w := bUser.State(), bUser.WaitingFor(); st != kit.StatePending || !slices.Equal(w, []string{"notes"}) {
		t.Errorf("bob's plugin injecting alice's service: state %v waiting for %v, want pending on [notes]", st, w)
	}
	if v, ok := bUser.Context().Get("notes"); ok {
		t.Errorf("bob's Get(notes) = %v: read alice's service", v)
	}
	if _, ok := root.Get("notes"); ok {
		t.Error("the runtime's own Get saw a session's service as its own")
	}
	// Bob may provide the same key: sessions never clash, and bob's plugin loads on his.
	listenAs(t, root, "b-provider", "bob", func(c *kit.Context) error { return c.Provide("notes", "bob's notes") })
	if st := bUser.State(); st != kit.StateActive {
		t.Errorf("bob's plugin after bob provides notes: state %v, want active", st)
	}
	if v, _ := bUser.Context().Get("notes"); v != "bob's notes" {
		t.Errorf("bob reads %v, want his own notes", v)
	}
	if v, _ := aUser.Context().Get("notes"); v != "alice's notes" {
		t.Errorf("alice reads %v, want her own notes", v)
	}
	// A session cannot shadow the runtime's own service.
	listenAs(t, root, "shared-fs", "", func(c *kit.Context) error { return c.Provide("fs", "the runtime's fs") })
	f := root.Plugin(&kit.Plugin{Name: "fake-fs", Session: "bob", Apply: func(c *kit.Context) error { return c.Provide("fs", "bob's fake") }})
	if err := f.Err(); !errors.Is(err, kit.ErrDuplicate) {
		t.Errorf("a session providing the runtime's fs: err = %v, want ErrDuplicate", err)
	}
	var sessions []string
	for _, s := range root.Services() {
		if s.Key == "notes" {
			sessions = append(sessions, s.Session)
		}
	}
	slices.Sort(sessions)
	if !slices.Equal(sessions, []string{"alice", "bob"}) {
		t.Errorf("Services() lists notes for sessions %v, want [alice bob]", sessions)
	}
}

// TestSessionTools: a session's tool is listed, described and callable only in its own
// session's view; the runtime's own view sees every tool; a name held by another session
// is refused without naming its plugin; ToolsChange tells a session only of its own tools.
func TestSessionTools(t *testing.T) {
	ctx := context.Background()
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	tools, _ := kit.ToolsService.Get(root)
	echo := func(name string) kit.Tool {
		return kit.Tool{ToolSchema: kit.ToolSchema{Name: name, Description: "d"}, Execute: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`"` + name + `"`), nil
		}}
	}
	var h heard
	register := func(name, session, tool string) {
		listenAs(t, root, name, session, func(c *kit.Context) error {
			if _, err := kit.ToolsChange.On(c, func(e kit.ToolsChangeEvent) { h.add(name, e.Tool) }); err != nil {
				return err
			}
			ts, ok := kit.ToolsService.Get(c)
			if !ok {
				return errors.New("no tools service")
			}
			_, err := ts.Register(c, echo(tool))
			return err
		})
	}
	register("shared", "", "runtime_tool")
	register("secret-keeper", "alice", "alice_tool")
	register("b", "bob", "bob_tool")
	if diff := cmp.Diff([]string{"b:bob_tool", "secret-keeper:alice_tool", "shared:alice_tool", "shared:bob_tool", "shared:runtime_tool"}, h.take()); diff != "" {
		t.Errorf("ToolsChange heard (-want +got):\n%s", diff)
	}

	names := func(v *kit.Tools) []string {
		var out []string
		for _, s := range v.Schemas() {
			out = append(out, s.Name)
		}
		return out
	}
	bob := tools.Session("bob")
	if diff := cmp.Diff([]string{"runtime_tool", "bob_tool"}, names(bob)); diff != "" {
		t.Errorf("bob's view lists (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"runtime_tool", "alice_tool", "bob_tool"}, names(tools)); diff != "" {
		t.Errorf("the runtime's view lists (-want +got):\n%s", diff)
	}
	if _, ok := bob.Get("alice_tool"); ok {
		t.Error("bob's view describes alice's tool")
	}
	if _, ok := bob.Owner("alice_tool"); ok {
		t.Error("bob's view names the owner of alice's tool")
	}
	if _, err := bob.Call(ctx, "alice_tool", nil); !errors.Is(err, kit.ErrUnknownTool) {
		t.Errorf("bob calling alice's tool: err = %v, want ErrUnknownTool", err)
	}
	if out, err := tools.Session("alice").Call(ctx, "alice_tool", nil); err != nil || string(out) != `"alice_tool"` {
		t.Errorf("alice calling her tool = %s, %v", out, err)
	}
	// The view a session's fiber gets from the service is its session's.
	probe := root.Plugin(&kit.Plugin{Name: "probe", Session: "bob", Apply: func(*kit.Context) error { return nil }})
	ts, _ := kit.ToolsService.Get(probe.Context())
	if diff := cmp.Diff([]string{"runtime_tool", "bob_tool"}, names(ts)); diff != "" {
		t.Errorf("bob's fiber's tools service lists (-want +got):\n%s", diff)
	}
	f := root.Plugin(&kit.Plugin{Name: "squatter", Session: "bob", Apply: func(c *kit.Context) error {
		_, err := ts.Register(c, echo("alice_tool"))
		return err
	}})
	err := f.Err()
	if !errors.Is(err, kit.ErrDuplicate) || strings.Contains(err.Error(), "secret-keeper") {
		t.Errorf("bob registering alice's tool name: err = %v, want ErrDuplicate that does not name alice's plugin", err)
	}
}

// TestPluginCannotCrossSessions: a session's fiber cannot start a plugin of another
// session; its children are its session's.
func TestPluginCannotCrossSessions(t *testing.T) {
	ctx := context.Background()
	root := kit.New(nil)
	defer root.Fiber().Dispose(ctx)
	var child, cross *kit.Fiber
	listenAs(t, root, "a", "alice", func(c *kit.Context) error {
		child = c.Plugin(&kit.Plugin{Name: "child", Apply: func(*kit.Context) error { return nil }})
		cross = c.Plugin(&kit.Plugin{Name: "cross", Session: "bob", Apply: func(*kit.Context) error { return nil }})
		return nil
	})
	if got := child.Session(); got != "alice" {
		t.Errorf("child of alice's plugin: session %q, want alice", got)
	}
	if err := cross.Err(); !errors.Is(err, kit.ErrSession) {
		t.Errorf("alice's plugin starting bob's: err = %v, want ErrSession", err)
	}
}

func TestTwoSessionFieldsPanics(t *testing.T) {
	type twice struct{ A, B kit.Session }
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "two kit.Session fields") {
			t.Errorf("recover() = %v, want the two-fields panic", r)
		}
	}()
	kit.NewEvent[twice]("test/twice")
}

// BenchmarkEmitScoped is BenchmarkEmit's 100 listeners with a session filter: all of the
// emit's session, or half of another, beside the same emit of an unscoped payload.
func BenchmarkEmitScoped(b *testing.B) {
	type unscoped struct {
		S string
		V int
	}
	type scoped struct {
		S kit.Session
		V int
	}
	own := func(int) string { return "alice" }
	half := func(i int) string { return []string{"alice", "bob"}[i%2] }
	b.Run("unscoped", func(b *testing.B) {
		benchEmit(b, kit.NewEvent[unscoped]("bench/unscoped"), func(int) string { return "" }, unscoped{S: "alice", V: 1})
	})
	b.Run("scoped", func(b *testing.B) {
		benchEmit(b, kit.NewEvent[scoped]("bench/scoped"), half, scoped{S: "alice", V: 1})
	})
	b.Run("scoped-all-own", func(b *testing.B) {
		benchEmit(b, kit.NewEvent[scoped]("bench/scoped-own"), own, scoped{S: "alice", V: 1})
	})
}

// benchEmit emits p to 100 listeners, listener i in session sessionOf(i).
func benchEmit[P any](b *testing.B, ev *kit.Event[P], sessionOf func(i int) string, p P) {
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	calls := 0
	for i := range 100 {
		root.Plugin(&kit.Plugin{Name: fmt.Sprint("l", i), Session: sessionOf(i), Apply: func(c *kit.Context) error {
			_, err := ev.On(c, func(P) { calls++ })
			return err
		}})
	}
	b.ReportAllocs()
	for b.Loop() {
		ev.Emit(root, p)
	}
	if calls == 0 {
		b.Fatal("listeners never ran")
	}
}
