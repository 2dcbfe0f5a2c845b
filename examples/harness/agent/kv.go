package agent

import (
	"maps"
	"slices"
	"sync"

	"github.com/cordiskit/cordiskit/kit"
)

// KV is a small key-value store of strings shared by the runtime and its plugins, saved to
// the work directory on session/flush and loaded again at boot. Its methods are
// synchronous. Store structured values as JSON text.
var KV = kit.NewService[*Store]("kv")

// Store is the kv service. It is safe for concurrent use.
type Store struct {
	mu sync.RWMutex
	m  map[string]string
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{m: map[string]string{}} }

// Get returns the value stored under key, or "" when there is none; Has tells an empty
// value from a missing one.
func (s *Store) Get(key string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m[key]
}

// Has reports whether a value is stored under key.
func (s *Store) Has(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.m[key]
	return ok
}

// Set stores value under key, replacing any previous value.
func (s *Store) Set(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = value
}

// Delete removes key and reports whether it was there.
func (s *Store) Delete(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[key]
	delete(s.m, key)
	return ok
}

// Keys returns every key, sorted.
func (s *Store) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Sorted(maps.Keys(s.m))
}

// Snapshot returns a copy of every entry.
func (s *Store) Snapshot() map[string]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return maps.Clone(s.m)
}
