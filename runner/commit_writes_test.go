package runner

import (
	"context"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"sync"
	"testing"
)

// updateCounter is a Store that counts the Update calls it passes on.
type updateCounter struct {
	Store
	mu      sync.Mutex
	updates int
}

func (s *updateCounter) Update(ctx context.Context, id string, c Change) (Plugin, error) {
	s.mu.Lock()
	s.updates++
	s.mu.Unlock()
	return s.Store.Update(ctx, id, c)
}

func (s *updateCounter) count() int { s.mu.Lock(); defer s.mu.Unlock(); return s.updates }

// A host-only run writes the Store twice: the attempt when it starts, then one change
// that records the started host half and commits (Current, Next, Running and the
// attempt's status together), so no reader sees a started half that is not committed.
func TestHostOnlyRunCommitsInOneWrite(t *testing.T) {
	base := NewMemoryStore()
	if testStore != nil {
		base = testStore(t)
	}
	store := &updateCounter{Store: base}
	e := newEnv(t, &Options{Store: store})
	d := e.define(newPlugin("clock"), `return { name: 'clock', apply(ctx) {} }`, "")
	before := store.count()
	out, err := e.r.Run(as("s1"), dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := store.count() - before; n != 2 {
		t.Errorf("a host-only run made %d Store updates, want 2 (the attempt, then the commit with the started half)", n)
	}
	if out.Status != dynamic.StartRunning || out.Host.Status != dynamic.HalfRunning {
		t.Errorf("Run answered status %q, host %q; want running, running", out.Status, out.Host.Status)
	}
	p := e.plugin(d.PluginID)
	if p.Current != d.PackageID || p.Next != "" || !p.Running {
		t.Errorf("stored pointers current=%q next=%q running=%v; want %s, \"\", true", p.Current, p.Next, p.Running, d.PackageID)
	}
	if a := p.Latest; a == nil || a.Status != dynamic.RunRunning || a.Host.Status != dynamic.HalfRunning || a.PackageID != d.PackageID {
		t.Errorf("stored latest attempt %+v; want %s running with its host half running", a, d.PackageID)
	}
	e.r.mu.Lock()
	_, live := e.r.live[d.PluginID]
	e.r.mu.Unlock()
	if !live {
		t.Errorf("no live entry for the running %s", d.PluginID)
	}
}
