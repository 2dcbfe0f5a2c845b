package runner

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// NewMemoryStore returns a Store that keeps everything in process memory: a restart loses
// every Plugin, Package and grant, and its counters start again at 1.
func NewMemoryStore() Store {
	return &memoryStore{plugins: map[string]*memRecord{}, sessions: map[string][]*memRecord{}, counters: map[Counter]int{}}
}

type memoryStore struct {
	mu       sync.Mutex
	plugins  map[string]*memRecord
	order    []*memRecord            // creation order
	sessions map[string][]*memRecord // each session's, in creation order
	nextPlug int                     // the Plugin counter, shared by every prefix
	nextPkg  int
	counters map[Counter]int
}

// A memRecord is one Plugin and its Listing, which every write keeps current so a list
// reads neither Packages nor maps. The Listing shares the Plugin's latest attempt, which
// a change replaces and never edits (applyChange); Listings copies it on the way out.
type memRecord struct {
	p       Plugin
	listing Listing
}

func (s *memoryStore) Define(_ context.Context, d Definition) (Listing, Package, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rec *memRecord
	if d.Prefix != "" {
		rec = &memRecord{p: Plugin{ID: d.Prefix + "-" + strconv.Itoa(s.nextPlug+1), Session: d.Session}}
	} else if rec = s.plugins[d.PluginID]; rec == nil || rec.p.Session != d.Session {
		return Listing{}, Package{}, ErrNotFound
	}
	if err := d.Admit(s.holds(d.Session)); err != nil {
		return Listing{}, Package{}, err
	}
	// Counters move only once nothing can fail any more.
	if d.Prefix != "" {
		s.nextPlug++
		s.plugins[rec.p.ID] = rec
		s.order = append(s.order, rec)
		s.sessions[d.Session] = append(s.sessions[d.Session], rec)
	}
	s.nextPkg++
	k := Package{ID: "pkg-" + strconv.Itoa(s.nextPkg), Name: d.Name, Purpose: d.Purpose, Host: d.Host, Client: d.Client}
	rec.p.Packages = append(rec.p.Packages, k)
	rec.listing = rec.p.listing()
	return rec.listing.Clone(), k, nil
}

// holds counts session's Plugins and Packages. s.mu held.
func (s *memoryStore) holds(session string) (plugins, packages int) {
	for _, rec := range s.sessions[session] {
		packages += len(rec.p.Packages)
	}
	return len(s.sessions[session]), packages
}

func (s *memoryStore) Plugin(_ context.Context, id string) (Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.plugins[id]
	if rec == nil {
		return Plugin{}, ErrNotFound
	}
	return rec.p.Clone(), nil
}

// list is the records of session ("" for every session's) in creation order. s.mu held.
func (s *memoryStore) list(session string) []*memRecord {
	if session == "" {
		return s.order
	}
	return s.sessions[session]
}

func (s *memoryStore) Plugins(_ context.Context, session string) ([]Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := s.list(session)
	out := make([]Plugin, 0, len(recs))
	for _, rec := range recs {
		out = append(out, rec.p.Clone())
	}
	return out, nil
}

func (s *memoryStore) Listings(_ context.Context, session string) ([]Listing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := s.list(session)
	out := make([]Listing, 0, len(recs))
	for _, rec := range recs {
		out = append(out, rec.listing.Clone())
	}
	return out, nil
}

func (s *memoryStore) Update(_ context.Context, id string, c Change) (Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.plugins[id]
	if rec == nil {
		return Plugin{}, ErrNotFound
	}
	if err := rec.p.Apply(c); err != nil {
		return Plugin{}, err
	}
	rec.listing = rec.p.listing()
	return rec.p.Clone(), nil
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
		p.Latest = cloneAttempt(c.Attempt)
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
	rec := s.plugins[id]
	if rec == nil {
		return ErrNotFound
	}
	delete(s.plugins, id)
	s.order = slices.DeleteFunc(s.order, func(x *memRecord) bool { return x == rec })
	if own := slices.DeleteFunc(s.sessions[rec.p.Session], func(x *memRecord) bool { return x == rec }); len(own) > 0 {
		s.sessions[rec.p.Session] = own
	} else {
		delete(s.sessions, rec.p.Session)
	}
	return nil
}

func (s *memoryStore) Mint(_ context.Context, k Counter) (string, error) {
	if k != CounterRun && k != CounterApproval {
		return "", fmt.Errorf("runner: unknown counter %q", k)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counters[k]++
	return string(k) + "-" + strconv.Itoa(s.counters[k]), nil
}
