package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// NewMemoryStore returns a Store that keeps everything in process memory: a restart loses
// every Plugin, Package and grant, and its counters start again at 1.
func NewMemoryStore() Store {
	return &memoryStore{plugins: map[string]*Plugin{}, counters: map[Counter]int{}}
}

type memoryStore struct {
	mu       sync.Mutex
	plugins  map[string]*Plugin
	order    []string // creation order
	nextPlug int      // the Plugin counter, shared by every prefix
	nextPkg  int
	counters map[Counter]int
}

func (s *memoryStore) Define(_ context.Context, d Definition) (Plugin, Package, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p *Plugin
	if d.Prefix != "" {
		p = &Plugin{ID: fmt.Sprintf("%s-%d", d.Prefix, s.nextPlug+1), Session: d.Session}
	} else if p = s.plugins[d.PluginID]; p == nil || p.Session != d.Session {
		return Plugin{}, Package{}, ErrNotFound
	}
	// Counters move only once nothing can fail any more.
	if d.Prefix != "" {
		s.nextPlug++
		s.plugins[p.ID] = p
		s.order = append(s.order, p.ID)
	}
	s.nextPkg++
	k := Package{ID: fmt.Sprintf("pkg-%d", s.nextPkg), Name: d.Name, Purpose: d.Purpose, Host: d.Host, Client: d.Client}
	p.Packages = append(p.Packages, k)
	return p.Clone(), k, nil
}

func (s *memoryStore) Plugin(_ context.Context, id string) (Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.plugins[id]
	if p == nil {
		return Plugin{}, ErrNotFound
	}
	return p.Clone(), nil
}

func (s *memoryStore) Plugins(_ context.Context, session string) ([]Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Plugin
	for _, id := range s.order {
		if p := s.plugins[id]; session == "" || p.Session == session {
			out = append(out, p.Clone())
		}
	}
	return out, nil
}

func (s *memoryStore) Update(_ context.Context, id string, c Change) (Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.plugins[id]
	if p == nil {
		return Plugin{}, ErrNotFound
	}
	if err := p.Apply(c); err != nil {
		return Plugin{}, err
	}
	return p.Clone(), nil
}

// Apply applies c to p as Store.Update does; every Store applies changes with it, so
// they agree. A pointer or a grant naming a Package p does not have is refused, and p is
// unchanged.
func (p *Plugin) Apply(c Change) error {
	if err := checkChange(p, c); err != nil {
		return err
	}
	applyChange(p, c)
	return nil
}

// checkChange refuses a change that names a Package p does not have.
func checkChange(p *Plugin, c Change) error {
	for _, id := range []*string{c.Current, c.Next, &c.Grant} {
		if id != nil && *id != "" {
			if _, ok := p.Package(*id); !ok {
				return fmt.Errorf("runner: plugin %s has no package %s", p.ID, *id)
			}
		}
	}
	return nil
}

// applyChange applies a checked change to p.
func applyChange(p *Plugin, c Change) {
	if c.Attempt != nil {
		p.Latest = c.Attempt.clone()
	}
	if c.Current != nil {
		p.Current = *c.Current
	}
	if c.Next != nil {
		p.Next = *c.Next
	}
	if c.Grant != "" && !slices.Contains(p.Grants.Packages, c.Grant) {
		p.Grants.Packages = append(p.Grants.Packages, c.Grant)
	}
	if c.Revoke != "" {
		p.Grants.Packages = slices.DeleteFunc(p.Grants.Packages, func(id string) bool { return id == c.Revoke })
	}
	if c.Future != nil {
		p.Grants.Future = *c.Future
	}
	if c.Running != nil {
		p.Running = *c.Running
	}
}

func (s *memoryStore) Remove(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plugins[id] == nil {
		return ErrNotFound
	}
	delete(s.plugins, id)
	s.order = slices.DeleteFunc(s.order, func(x string) bool { return x == id })
	return nil
}

func (s *memoryStore) Mint(_ context.Context, k Counter) (string, error) {
	if k != CounterRun && k != CounterApproval {
		return "", fmt.Errorf("runner: unknown counter %q", k)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counters[k]++
	return fmt.Sprintf("%s-%d", k, s.counters[k]), nil
}
