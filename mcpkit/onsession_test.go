package mcpkit_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/mcpkit"
)

// OnSession hears each client session once, with the kit session it is, before its first
// request is served; further requests, and other clients' sessions, add only their own.
func TestOnSessionOncePerClientSession(t *testing.T) {
	var mu sync.Mutex
	var heard []string
	s := namedServer(t, newFakeSource(), &mcpkit.Options{OnSession: func(session string) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, session)
	}})
	alice, bob := connectNamed(t, s, "alice", ""), connectNamed(t, s, "bob", "")
	for range 3 {
		callTool(t, alice, "echo", map[string]any{"text": "x"})
	}
	mu.Lock()
	if !slices.Equal(heard, []string{"alice"}) {
		t.Errorf("after alice's three calls OnSession heard %q, want [alice]", heard)
	}
	mu.Unlock()
	callTool(t, bob, "echo", map[string]any{"text": "x"})
	callTool(t, alice, "echo", map[string]any{"text": "x"})
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(heard, []string{"alice", "bob"}) {
		t.Errorf("OnSession heard %q, want [alice bob]", heard)
	}
}
