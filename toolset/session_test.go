package toolset_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/toolset"
)

// callAs runs a tool on behalf of session, through that session's view of the registry,
// as an adapter serving many sessions does.
func (h *harness) callAs(session, tool string, args any) (json.RawMessage, error) {
	h.t.Helper()
	in, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.tools.Session(session).Call(kit.WithSession(context.Background(), session), tool, in)
}

func (h *harness) mountAs(session, code string) mountOut {
	h.t.Helper()
	out, err := h.callAs(session, "cordis_mount", map[string]string{"code": code})
	if err != nil {
		h.t.Fatalf("%s mounting: %v", session, err)
	}
	var m mountOut
	if err := json.Unmarshal(out, &m); err != nil {
		h.t.Fatal(err)
	}
	return m
}

func (h *harness) inspectAs(session string) string {
	h.t.Helper()
	out, err := h.callAs(session, "cordis_inspect", map[string]string{})
	if err != nil {
		h.t.Fatalf("%s inspecting: %v", session, err)
	}
	var text string
	if err := json.Unmarshal(out, &text); err != nil {
		h.t.Fatal(err)
	}
	return text
}

// TestMountsBelongToTheirSession: a throw-away mount belongs to the session that mounted
// it. Another session neither sees it (inspect), nor hears its tools (tools/change), nor
// calls its tools, nor injects the service it provides, nor unmounts it.
func TestMountsBelongToTheirSession(t *testing.T) {
	h := newHarness(t)
	// Alice's mount: a secret tool and a service, and an ear on tools/change.
	alice := h.mountAs("alice", `
		const heard = [];
		return { name: 'alice-plugin', apply(ctx) {
			ctx.on('tools/change', (tool, registered, session) => { heard.push(tool + '@' + session) });
			ctx.provide('alice-notes', { read() { return 'alice secret' } });
			ctx.tools.register({ name: 'alice_secret', description: 'alice only', parameters: { type: 'object' }, execute: () => 'alice secret' });
			ctx.tools.register({ name: 'alice_heard', description: 'what alice heard', parameters: { type: 'object' }, execute: () => heard.join(',') });
		} }`)
	if alice.State != "active" {
		t.Fatalf("alice's mount: %+v", alice)
	}
	// Bob registers a tool of his own, and mounts a plugin that injects alice's service.
	bob := h.mountAs("bob", `return { name: 'bob-plugin', apply(ctx) {
		ctx.tools.register({ name: 'bob_tool', description: 'bob only', parameters: { type: 'object' }, execute: () => 'bob' });
	} }`)
	thief := h.mountAs("bob", `return { name: 'thief', inject: ['alice-notes'], apply(ctx) {} }`)
	if thief.State != "pending" || len(thief.WaitingFor) != 1 {
		t.Errorf("bob's mount injecting alice's service: %+v, want pending on alice-notes", thief)
	}

	out, err := h.callAs("alice", "alice_heard", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); strings.Contains(s, "bob_tool") || !strings.Contains(s, "alice_secret@alice") {
		t.Errorf("alice's tools/change listener heard %s: want her own tools, never bob's", s)
	}
	if _, err := h.callAs("bob", "alice_secret", map[string]any{}); err == nil {
		t.Error("bob called alice's tool")
	}

	report := h.inspectAs("bob")
	for _, leak := range []string{"alice_secret", "alice-plugin", "alice-notes (provided by", alice.ID + ":"} {
		if strings.Contains(report, leak) {
			t.Errorf("bob's cordis_inspect shows %q:\n%s", leak, report)
		}
	}
	for _, own := range []string{"bob_tool", "bob-plugin", bob.ID} {
		if !strings.Contains(report, own) {
			t.Errorf("bob's cordis_inspect lacks his own %q:\n%s", own, report)
		}
	}
	if report := h.inspectAs("alice"); !strings.Contains(report, "alice_secret") || strings.Contains(report, "bob_tool") {
		t.Errorf("alice's cordis_inspect:\n%s", report)
	}

	_, err = h.callAs("bob", "cordis_unmount", map[string]string{"id": alice.ID})
	if err == nil || !strings.Contains(err.Error(), "no temporary Plugin") {
		t.Errorf("bob unmounting alice's %s: err = %v, want the answer for an unknown id", alice.ID, err)
	}
	if _, err := h.callAs("alice", "alice_secret", map[string]any{}); err != nil {
		t.Errorf("alice's tool after bob's unmount attempt: %v", err)
	}
	if _, err := h.callAs("alice", "cordis_unmount", map[string]string{"id": alice.ID}); err != nil {
		t.Errorf("alice unmounting her own mount: %v", err)
	}
}

// Options.SharedServices: a key a mount provides is seen by every session when the runtime
// author declared it shared; the mount's other services stay its session's.
func TestMountSharedServices(t *testing.T) {
	h := newHarnessOpts(t, &toolset.Options{SharedServices: []string{"weather"}})
	h.mountAs("alice", `return { name: 'sky', apply(ctx) {
		ctx.provide('weather', { now() { return 'sunny' } })
		ctx.provide('diary', { read() { return 'private' } })
	} }`)
	if m := h.mountAs("bob", `return { name: 'forecast', inject: ['weather'], apply(ctx) {} }`); m.State != "active" {
		t.Errorf("bob's mount injecting the shared weather: %+v", m)
	}
	if m := h.mountAs("bob", `return { name: 'snoop', inject: ['diary'], apply(ctx) {} }`); m.State != "pending" {
		t.Errorf("bob's mount injecting alice's diary: %+v; want pending", m)
	}
}
