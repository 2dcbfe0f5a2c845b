package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/cordiskit/cordiskit/kit"
)

// KV is a small key-value store of strings shared by the runtime and its plugins, saved
// to the runtime's state directory on session/flush and loaded again at boot. Its methods
// are synchronous. Store structured values as JSON text. It holds at most 4 MiB, counted
// as saved (keys and values JSON-quoted); a set past that throws.
var KV = kit.NewService[*Store]("kv")

// MaxKVBytes caps the kv store, counted as it is saved: each entry costs its key and value
// JSON-quoted plus 6 bytes of layout. The saved file is never larger than this plus a few
// bytes, so whatever a flush saved, the next boot loads.
const MaxKVBytes = 4 << 20

// ErrKVFull is wrapped by the error of a Set that would grow the store past MaxKVBytes.
var ErrKVFull = errors.New("the kv store is full")

// Store is the kv service. It is safe for concurrent use.
type Store struct {
	mu   sync.RWMutex
	m    map[string]string
	size int // the entries' cost as saved, see entryCost
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

// Set stores value under key, replacing any previous value. It fails (throws), storing
// nothing, when the store would grow past its 4 MiB (MaxKVBytes).
func (s *Store) Set(key, value string) error {
	cost := entryCost(key, value)
	s.mu.Lock()
	defer s.mu.Unlock()
	size := s.size + cost
	if old, ok := s.m[key]; ok {
		size -= entryCost(key, old)
	}
	if size > MaxKVBytes {
		return fmt.Errorf("kv: set %q: %w (it holds %d of %d bytes, and this entry costs %d); delete keys you no longer need, or keep large data in files (fs)", key, ErrKVFull, s.size, MaxKVBytes, cost)
	}
	s.m[key], s.size = value, size
	return nil
}

// Delete removes key and reports whether it was there.
func (s *Store) Delete(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.m[key]
	if ok {
		s.size -= entryCost(key, old)
		delete(s.m, key)
	}
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

// entryCost is what one entry adds to the saved file: `  "key": "value",` and a newline,
// with key and value quoted the way encoding/json quotes them.
func entryCost(key, value string) int { return quotedLen(key) + quotedLen(value) + 6 }

func quotedLen(s string) int {
	b, _ := json.Marshal(s) // a string always marshals
	return len(b)
}
