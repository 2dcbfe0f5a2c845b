package runner

import (
	"context"
	"errors"
	"maps"
	"slices"
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
// what the others recorded: defines, removals, and every other change of a Plugin (a run
// started or stopped, a grant, a version pointer moved). A Runner on one tells its
// listeners as DefinitionChanged, so that a panel on this process shows another
// process's change; runner/pgstore implements it (PostgreSQL's LISTEN/NOTIFY).
// cordis_inspect_self needs no notice: it reads the Store every time.
//
// A notice is a claim, not a fact (on a shared database whoever can connect may send
// one), so the Runner believes only what its Store says: it reads the session a notice
// names before it tells anyone, tells only that session, and names a Plugin only when the
// Store gives it to that session (or, for a removal, holds it no more). So a forged notice
// makes a session's pages read their own inventory again, and nothing else.
type ChangeNotifier interface {
	// WatchChanges calls changed with each change another process recorded, and with a
	// notice whose Missed is set when notices may have been lost (the notifier's
	// connection dropped and came back: it calls once it listens again), until cancel is
	// called; cancel waits for a call in progress. changed must not block.
	WatchChanges(changed func(ChangeNotice)) (cancel func())
}

// A ChangeNotice is what a ChangeNotifier heard of another process's change.
type ChangeNotice struct {
	Session   string
	PluginID  string
	PackageID string           // the new Package of a define; "" otherwise
	Change    DefinitionChange // Defined, Undefined or Updated
	// Missed says that notices may have been lost while the notifier was not listening:
	// any session's Plugins may have changed. The other fields are empty.
	Missed bool
}

// maxQueuedNotices bounds the notices a Runner keeps while it checks earlier ones; past
// it, it drops them and reads every session again (resync), as after a Missed notice.
const maxQueuedNotices = 1024

// minResync is the least time between two resyncs, so that a flood of notices (or of
// forged ones) costs the Store one read of every Plugin's listing per interval at most.
const minResync = time.Second

// relay carries a ChangeNotifier's notices to the goroutine that checks them against the
// Store and emits DefinitionChanged (relayLoop).
type relay struct {
	mu     sync.Mutex
	queue  []ChangeNotice
	missed bool // notices were lost (the notifier's or this queue's): resync
	wake   chan struct{}

	cancel  context.CancelFunc
	done    sync.WaitGroup
	unwatch func()
	stop    sync.Once
}

// push queues n for the relay loop; it never blocks.
func (rl *relay) push(n ChangeNotice) {
	rl.mu.Lock()
	switch {
	case n.Missed || len(rl.queue) >= maxQueuedNotices:
		rl.missed, rl.queue = true, nil
	default:
		rl.queue = append(rl.queue, n)
	}
	rl.mu.Unlock()
	select {
	case rl.wake <- struct{}{}:
	default: // already woken
	}
}

// take returns the queued notices and whether a resync is due, and empties the queue.
func (rl *relay) take() ([]ChangeNotice, bool) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	q, m := rl.queue, rl.missed
	rl.queue, rl.missed = nil, false
	return q, m
}

// startRelay relays the changes of the other processes that n announces.
func (r *Runner) startRelay(n ChangeNotifier) {
	ctx, cancel := context.WithCancel(context.Background())
	rl := &relay{wake: make(chan struct{}, 1), cancel: cancel}
	rl.unwatch = n.WatchChanges(rl.push)
	rl.done.Go(func() { r.relayLoop(ctx, rl) })
	r.unwatchChanges = func() {
		rl.stop.Do(func() {
			rl.unwatch()
			rl.cancel()
			rl.done.Wait()
		})
	}
}

// relayLoop checks each batch of notices against the Store and emits what it says
// (relayBatch), and reads every session again when notices were lost (resync): at most
// once per minResync, and, while the Store does not answer, again after a pause that
// grows to 5 s. It starts by learning which sessions have Plugins (a resync that tells
// no one); when that read fails, a resync is due.
func (r *Runner) relayLoop(ctx context.Context, rl *relay) {
	known := map[string]bool{} // the sessions with Plugins at the last resync, and those found since
	var (
		due   = r.resync(ctx, known, false) != nil // a resync is due
		retry <-chan time.Time                     // when it may be made; nil: now
		last  time.Time                            // the last resync's start
		pause = minResync
	)
	if due {
		retry = time.After(0)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-rl.wake:
		case <-retry:
			retry = nil
		}
		batch, missed := rl.take()
		if !r.relayBatch(ctx, batch, known) {
			missed = true
		}
		if due = due || missed; !due || retry != nil {
			continue
		}
		if early := minResync - time.Since(last); early > 0 {
			retry = time.After(early)
			continue
		}
		last = time.Now()
		if err := r.resync(ctx, known, true); err != nil {
			if ctx.Err() != nil {
				return
			}
			r.logger.Warn("cordis runner: reading the store to catch up with other processes' changes; retrying", "in", pause, "err", err)
			retry, pause = time.After(pause), min(pause*2, 5*time.Second)
			continue
		}
		due, pause = false, minResync
	}
}

// relayBatch emits DefinitionChanged for each notice of batch, in order, as the Store
// says: for the session the notice names, with the notice's Plugin only when the Store
// gives that Plugin to that session (a define keeps its change and Package), or, for a
// removal, when the Store holds the Plugin no more; else a plain reload (Updated, no
// Plugin). A session that has no Plugins and had none (known) is told nothing: it has
// nothing to read again, and a notice naming sessions at random makes no one remember
// them. It reads each session's listing once. It reports false when a read failed: the
// notices it could not check are dropped, and a resync covers them.
func (r *Runner) relayBatch(ctx context.Context, batch []ChangeNotice, known map[string]bool) bool {
	owned := map[string]map[string]bool{} // session → its Plugins' ids; nil when unread
	gone := map[string]bool{}             // Plugin → the Store holds it no more
	ok := true
	for _, n := range batch {
		ids, read := owned[n.Session]
		if !read {
			ls, err := r.store.Listings(ctx, n.Session)
			if err == nil {
				ids = make(map[string]bool, len(ls))
				for _, l := range ls {
					ids[l.ID] = true
				}
			}
			owned[n.Session], ok = ids, ok && err == nil
		}
		if ids == nil || len(ids) == 0 && !known[n.Session] {
			continue
		}
		ev := DefinitionChangedEvent{Session: n.Session, Change: Updated}
		switch {
		case ids[n.PluginID]:
			ev.PluginID = n.PluginID
			if n.Change == Defined {
				ev.Change, ev.PackageID = Defined, n.PackageID
			}
		case n.Change == Undefined && n.PluginID != "":
			// Another session's Plugin is not this session's to drop: only one the Store
			// holds no more (read once a batch, however often the notices name it).
			g, read := gone[n.PluginID]
			if !read {
				_, err := r.store.Plugin(ctx, n.PluginID)
				if err != nil && !errors.Is(err, ErrNotFound) {
					ok = false
					continue
				}
				g = err != nil
				gone[n.PluginID] = g
			}
			if g {
				ev.PluginID, ev.Change = n.PluginID, Undefined
			}
		}
		if len(ids) > 0 {
			known[n.Session] = true
		}
		DefinitionChanged.Emit(r.ctx(), ev)
	}
	return ok
}

// resync tells every session that has Plugins in the Store, and every one known since the
// last resync (whose last Plugin may have gone), to read its inventory again (Updated,
// naming no Plugin), unless tell is false. known becomes the sessions found.
func (r *Runner) resync(ctx context.Context, known map[string]bool, tell bool) error {
	ls, err := r.store.Listings(ctx, "")
	if err != nil {
		return err
	}
	found := map[string]bool{}
	for _, l := range ls {
		found[l.Session] = true
	}
	sessions := slices.Sorted(maps.Keys(found))
	for s := range known {
		if !found[s] {
			sessions = append(sessions, s)
		}
	}
	clear(known)
	maps.Copy(known, found)
	if !tell {
		return nil
	}
	for _, s := range sessions {
		DefinitionChanged.Emit(r.ctx(), DefinitionChangedEvent{Session: s, Change: Updated})
	}
	r.logger.Info("cordis runner: caught up with other processes' changes after missing some; every session's pages read their inventory again", "sessions", len(sessions))
	return nil
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
		r.startRelay(n)
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

// adopt takes the lease of session, whose process ended with Plugins running (or that a
// run here took while others were recorded running), and starts them here as boot does:
// those this Runner does not run or start already.
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
	var boot []Plugin
	for _, p := range ps {
		r.mu.Lock()
		l := r.live[p.ID]
		busy := l != nil && (l.run != nil || l.start != nil || l.req != nil)
		r.mu.Unlock()
		if needsBoot(p) && !busy { // a busy one started here since (the run that took the lease)
			boot = append(boot, p)
		}
	}
	if len(boot) == 0 {
		return
	}
	r.logger.Info("cordis runner: took over a session whose Plugins ran in no live process", "session", session, "plugins", len(boot))
	for _, p := range boot {
		if err := r.bootPlugin(ctx, p); err != nil {
			r.logger.Warn("cordis runner: restarting an adopted session's Plugin", "session", session, "plugin", p.ID, "err", err)
		}
	}
}

// loseSession stops the runs of session in this process: another process holds its
// lease now, or may, and runs them there. It finds them in memory, not in the Store, which
// may be the very thing that is away (a lease is lost when it cannot be renewed). The
// store's record is left as it is (it is the other process's to change).
func (r *Runner) loseSession(ctx context.Context, session string) {
	r.mu.Lock()
	var ids []string
	for id, l := range r.live {
		if l.run != nil && l.run.session == session {
			ids = append(ids, id)
		}
	}
	r.mu.Unlock()
	stopped := 0
	for _, id := range ids {
		r.mu.Lock()
		l := r.live[id]
		var run *liveRun
		if l != nil && l.run != nil && l.run.session == session {
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
				r.logger.Warn("cordis runner: stopping a run reported", "plugin", id, "run", run.id, "err", err)
			}
		}
		cancel()
		r.mu.Lock()
		if l := r.live[id]; l != nil && l.stopping > 0 {
			l.stopping--
			r.tidy(id)
		}
		r.stopped.Broadcast()
		r.mu.Unlock()
		DynamicRetract.Emit(r.ctx(), DynamicRetractEvent{PluginID: id, PackageID: run.pkg, PluginRunID: run.id})
	}
	r.logger.Warn("cordis runner: this process lost the lease of a session to another process; its runs here were stopped and run there", "session", session, "stopped", stopped)
	if err := r.leases.owner.ReleaseSession(ctx, session); err != nil {
		r.logger.Warn("cordis runner: giving up a lost session's lease; it expires by itself", "session", session, "err", err)
	}
}
