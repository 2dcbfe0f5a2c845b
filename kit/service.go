package kit

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// A Service is a typed handle on a service key. Declare services as package-level
// variables; the generator reads the declaration and its doc comment:
//
//	// FS is the abstract filesystem seam.
//	var FS = kit.NewService[FileSystem]("fs")
//
// A service is visible (Get succeeds, dependents load) while the fiber that provided it is
// active.
type Service[T any] struct {
	key string
}

// NewService declares a service under key. It panics if key is empty.
func NewService[T any](key string) *Service[T] {
	if key == "" {
		panic("kit: NewService with an empty key")
	}
	return &Service[T]{key: key}
}

// Key returns the service key.
func (s *Service[T]) Key() string { return s.key }

// Provide registers v under the service key as an effect of c's fiber. Providing a key
// that another fiber provides is an error naming both.
func (s *Service[T]) Provide(c *Context, v T) error { return c.Provide(s.key, v) }

// Get returns the service value if it is provided by an active fiber.
func (s *Service[T]) Get(c *Context) (T, bool) {
	var zero T
	if c == nil {
		return zero, false
	}
	v, ok := c.Get(s.key)
	if !ok {
		return zero, false
	}
	t, ok := v.(T)
	return t, ok
}

type serviceEntry struct {
	key     string
	session string // whose it is: the owner's session, or "" for a key the owner shares
	value   any
	owner   *Fiber
	seq     uint64
}

// A svcKey is where a service is kept: under its key, for one session or ("") for every
// session.
type svcKey struct{ session, key string }

func (e *serviceEntry) at() svcKey { return svcKey{e.session, e.key} }

// lookup returns the service key resolves to for session: the session's own, else the
// runtime's. r.mu held.
func (r *root) lookup(session, key string) (*serviceEntry, bool) {
	if session != "" {
		if e, ok := r.services[svcKey{session, key}]; ok {
			return e, true
		}
	}
	e, ok := r.services[svcKey{"", key}]
	return e, ok
}

// A sessionViewer is a service value that hands each session its own view of it (the tool
// registry does): Get returns forSession's result to a fiber of a session.
type sessionViewer interface{ forSession(session string) any }

// Provide registers v under key as an effect of c's fiber: it becomes visible when the
// fiber is active and disappears when the fiber unloads or is disposed. Fibers that inject
// key load and unload with it.
func (c *Context) Provide(key string, v any) error {
	if c == nil {
		return ErrNilContext
	}
	if key == "" {
		return fmt.Errorf("kit: Provide with an empty service key")
	}
	f, r := c.fiber, c.fiber.root
	session := f.session
	if slices.Contains(f.shares, key) {
		session = "" // declared shared: every session sees it
	}
	r.mu.Lock()
	// A session may not shadow the runtime's own service; sessions never clash with each
	// other, so one cannot learn what another provides.
	if old, ok := r.lookup(session, key); ok {
		r.mu.Unlock()
		return fmt.Errorf("kit: service %q is already provided by plugin %q; plugin %q cannot provide it too (dispose %q first): %w",
			key, old.owner.name, f.name, old.owner.name, ErrDuplicate)
	}
	r.seq++
	e := &serviceEntry{key: key, session: session, value: v, owner: f, seq: r.seq}
	r.services[e.at()] = e
	r.owned[f] = append(r.owned[f], key)
	r.mu.Unlock()

	_, err := f.addEffect(label{"service", key}, nil, func(context.Context) error {
		r.forget(e)
		r.reconcile([]string{key})
		return nil
	})
	if err != nil {
		r.forget(e)
		return err
	}
	if f.State() == StateActive {
		r.reconcile([]string{key})
	}
	return nil
}

// Get returns the value provided under key, if its provider is active (cordis' strict get).
// A fiber of a session sees that session's services and the runtime's own, never another
// session's.
func (c *Context) Get(key string) (any, bool) {
	if c == nil {
		return nil, false
	}
	f := c.fiber
	r := f.root
	r.mu.Lock()
	e, ok := r.lookup(f.session, key)
	r.mu.Unlock()
	if !ok || e.owner.State() != StateActive {
		return nil, false
	}
	if v, ok := e.value.(sessionViewer); ok && f.session != "" {
		return v.forSession(f.session), true
	}
	return e.value, true
}

// missing returns the keys that have no active provider visible to session, in the order
// given.
func (r *root) missing(session string, keys []string) []string {
	var out []string
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		if e, ok := r.lookup(session, k); !ok || e.owner.State() != StateActive {
			out = append(out, k)
		}
	}
	return out
}

// forget removes e from the store and from its owner's index. The index lists keys in the
// order they were provided and teardown forgets them newest first, so the key is searched
// from the end: found at once, where a scan from the front made disposing a fiber with n
// services O(n²).
func (r *root) forget(e *serviceEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.services[e.at()] == e {
		delete(r.services, e.at())
	}
	keys := r.owned[e.owner]
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i] == e.key {
			keys = slices.Delete(keys, i, i+1)
			break
		}
	}
	if len(keys) == 0 {
		delete(r.owned, e.owner)
	} else {
		r.owned[e.owner] = keys
	}
}

// keysOf returns the keys f provides, sorted.
func (r *root) keysOf(f *Fiber) []string {
	r.mu.Lock()
	keys := slices.Clone(r.owned[f])
	r.mu.Unlock()
	slices.Sort(keys)
	return keys
}

// Provides returns the keys the fiber has provided (visible or not), sorted.
func (f *Fiber) Provides() []string { return f.root.keysOf(f) }

// WaitingFor returns the injected keys with no active provider, in declaration order.
// It is empty for a fiber that is not pending.
func (f *Fiber) WaitingFor() []string {
	if f.State() != StatePending {
		return nil
	}
	return f.root.missing(f.session, f.inject)
}

func sortedServices(r *root) []*serviceEntry {
	r.mu.Lock()
	out := make([]*serviceEntry, 0, len(r.services))
	for _, e := range r.services {
		out = append(out, e)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b *serviceEntry) int { return cmp.Compare(a.seq, b.seq) })
	return out
}
