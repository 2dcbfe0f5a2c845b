package runner

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrSessionElsewhere reports a change a SessionOwner store refused because another live
// process holds the session's lease: that process runs the session's Plugins, and only it
// may start, stop or change them until its lease expires.
var ErrSessionElsewhere = errors.New("runner: another process runs this session's Plugins")

// A SessionOwner is a Store that several processes share and that gives each session's
// runs to one process at a time: a lease per session, held by one Store, renewed while its
// process lives and taken over by another once it expires. A Store that implements it
// refuses (ErrSessionElsewhere) an Update or Remove of a Plugin whose session's lease
// another live Store holds, and an Update that starts a run takes the session's lease for
// itself when no live Store holds it, in the same transaction, so that at most one process
// runs a session's Plugins at any time. runner/pgstore implements it; the memory and
// SQLite stores do not, and a Runner on them runs every session it boots.
//
// With a SessionOwner store a Runner boots only the sessions whose lease it takes, adopts
// a session whose lease expired while it had Plugins running (its process died) and
// reconciles them as boot does — with Options.RestartAtBoot it starts them again, host
// halves directly and client halves as run requests; without it it records them stopped
// and tells the session — and stops the runs of a session whose lease it lost, saying so
// in its log.
type SessionOwner interface {
	// AcquireSession takes session's lease for this Store, or renews it when the Store
	// holds it already. It reports false, with no error, when another live Store holds it.
	AcquireSession(ctx context.Context, session string) (bool, error)
	// OrphanedSessions lists the sessions that have a Plugin running (Plugin.Running)
	// and whose lease no live Store holds, or that another Store handed over to this one
	// (RequestSession); the Runner adopts each.
	OrphanedSessions(ctx context.Context) ([]string, error)
	// LeaseTTL is how long a lease lasts without being renewed.
	LeaseTTL() time.Duration
	// OnLeaseLost calls lost with each session whose lease this Store held and lost
	// (another Store took it, it could not be renewed before it expired, or another
	// Store asked for it: RequestSession), until the returned cancel is called. lost
	// must not block.
	OnLeaseLost(lost func(session string)) (cancel func())
	// RequestSession asks the Store that holds session's lease to give it up: that
	// Store's runner stops the session's runs and releases the lease, and the session's
	// running Plugins are then orphans for this process to adopt.
	RequestSession(ctx context.Context, session string) error
	// ReleaseSession gives up session's lease if this Store holds it: to the Store that
	// asked for it (RequestSession), or to no one. A Runner calls it once it stopped the
	// runs of a session whose lease was lost.
	ReleaseSession(ctx context.Context, session string) error
}

// TakeSession moves session's runs to this process: call it when the session's client
// connects here (the balancer moved it). With a SessionOwner store whose lease another
// live process holds, that process stops the session's runs and gives the lease up, and
// this Runner reconciles what was running as a boot does (Options.RestartAtBoot starts it
// again) within a round trip and a look for orphans (a twentieth of the lease's life, at
// most half a second); with any other store,
// or when no other process holds the session, it does nothing. It returns once the
// request is sent.
func (r *Runner) TakeSession(ctx context.Context, session string) error {
	o, ok := r.store.(SessionOwner)
	if !ok {
		return nil
	}
	return o.RequestSession(ctx, session)
}

// A ChangeNotifier is a Store that several processes share and that tells each of them
// the defines and removals the others recorded. A Runner on one emits DefinitionChanged
// for each, as for its own, so that panels read their inventory again; runner/pgstore
// implements it (PostgreSQL's LISTEN/NOTIFY). cordis_inspect_self needs no notice: it
// reads the Store every time.
type ChangeNotifier interface {
	// WatchChanges calls changed with each define and removal another process recorded,
	// until cancel is called; cancel waits for a call in progress. changed must not block.
	WatchChanges(changed func(DefinitionChangedEvent)) (cancel func())
}

// leases is the Runner's side of a SessionOwner store: the loop that adopts orphaned
// sessions and the sessions whose lease was lost, handled in that loop.
type leases struct {
	owner   SessionOwner
	cancel  context.CancelFunc
	done    sync.WaitGroup
	lost    chan string
	unwatch func()
}

// adoptInterval is how often a Runner looks for orphaned sessions: a twentieth of the
// lease's life, between 100 ms and 500 ms, so that a session whose process died runs
// again within its lease's expiry and half a second.
func adoptInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/20, 100*time.Millisecond), 500*time.Millisecond)
}

// mayBoot reports whether boot reconciles session's Plugins: always on a store that is
// no SessionOwner, else only when this process takes the session's lease.
func (r *Runner) mayBoot(ctx context.Context, taken map[string]bool, session string) bool {
	o, ok := r.store.(SessionOwner)
	if !ok {
		return true
	}
	if v, seen := taken[session]; seen {
		return v
	}
	got, err := o.AcquireSession(ctx, session)
	if err != nil {
		r.logger.Warn("cordis runner: taking a session's lease at boot failed; its Plugins are left to the next try", "session", session, "err", err)
	}
	taken[session] = got && err == nil
	return taken[session]
}

// startLeases starts the adoption loop when the store is a SessionOwner, and relays the
// other processes' changes when it is a ChangeNotifier.
func (r *Runner) startLeases() {
	if n, ok := r.store.(ChangeNotifier); ok {
		r.unwatchChanges = n.WatchChanges(func(ev DefinitionChangedEvent) { DefinitionChanged.Emit(r.ctx(), ev) })
	}
	o, ok := r.store.(SessionOwner)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &leases{owner: o, cancel: cancel, lost: make(chan string, 64)}
	l.unwatch = o.OnLeaseLost(func(session string) {
		select {
		case l.lost <- session:
		default: // the loop is behind; the next lost session or tick catches up
			r.logger.Error("cordis runner: too many lost leases at once; session not stopped here", "session", session)
		}
	})
	r.leases = l
	l.done.Go(func() { r.leaseLoop(ctx, l) })
}

// stopLeases ends the adoption loop and waits for it.
func (r *Runner) stopLeases() {
	if r.unwatchChanges != nil {
		r.unwatchChanges()
	}
	if l := r.leases; l != nil {
		l.unwatch()
		l.cancel()
		l.done.Wait()
	}
}

func (r *Runner) leaseLoop(ctx context.Context, l *leases) {
	t := time.NewTicker(adoptInterval(l.owner.LeaseTTL()))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-l.lost:
			r.loseSession(ctx, s)
		case <-t.C:
			sessions, err := l.owner.OrphanedSessions(ctx)
			if err != nil {
				if ctx.Err() == nil {
					r.logger.Warn("cordis runner: looking for sessions whose process ended", "err", err)
				}
				continue
			}
			for _, s := range sessions {
				r.adopt(ctx, l.owner, s)
			}
		}
	}
}

// adopt takes the lease of session, whose process ended with Plugins running, and starts
// them here as boot does.
func (r *Runner) adopt(ctx context.Context, o SessionOwner, session string) {
	got, err := o.AcquireSession(ctx, session)
	if err != nil || !got {
		return // another process took it first, or the store is away: the next tick retries
	}
	ps, err := r.store.Plugins(ctx, session)
	if err != nil {
		r.logger.Warn("cordis runner: reading an adopted session's Plugins", "session", session, "err", err)
		return
	}
	r.logger.Info("cordis runner: took over a session whose process ended", "session", session, "plugins", len(ps))
	for _, p := range ps {
		if err := r.bootPlugin(ctx, p); err != nil {
			r.logger.Warn("cordis runner: restarting an adopted session's Plugin", "session", session, "plugin", p.ID, "err", err)
		}
	}
}

// loseSession stops the runs of session in this process: another process holds its
// lease now, or may, and runs them there. The store's record is left as it is (it is the
// other process's to change).
func (r *Runner) loseSession(ctx context.Context, session string) {
	ps, err := r.store.Listings(ctx, session)
	if err != nil {
		r.logger.Error("cordis runner: this process lost a session's lease and could not read its Plugins to stop them", "session", session, "err", err)
		return
	}
	stopped := 0
	for _, p := range ps {
		r.mu.Lock()
		l := r.live[p.ID]
		var run *liveRun
		if l != nil {
			run = l.detach()
		}
		r.mu.Unlock()
		if run == nil {
			continue
		}
		stopped++
		sctx, cancel := r.stopCtx()
		if run.host != nil {
			if err := run.host.Stop(sctx); err != nil {
				r.logger.Warn("cordis runner: stopping a run reported", "plugin", p.ID, "run", run.id, "err", err)
			}
		}
		cancel()
		r.mu.Lock()
		if l := r.live[p.ID]; l != nil && l.stopping > 0 {
			l.stopping--
			r.tidy(p.ID)
		}
		r.stopped.Broadcast()
		r.mu.Unlock()
		DynamicRetract.Emit(r.ctx(), DynamicRetractEvent{PluginID: p.ID, PackageID: run.pkg, PluginRunID: run.id})
	}
	r.logger.Warn("cordis runner: this process lost the lease of a session to another process; its runs here were stopped and run there", "session", session, "stopped", stopped)
	if err := r.leases.owner.ReleaseSession(ctx, session); err != nil {
		r.logger.Warn("cordis runner: giving up a lost session's lease; it expires by itself", "session", session, "err", err)
	}
}
