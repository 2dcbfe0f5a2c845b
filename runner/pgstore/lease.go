package pgstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/jackc/pgx/v5"
)

var _ runner.SessionOwner = (*Store)(nil)

// acquire takes session $1's lease for owner $2 until $3 seconds from the server's now,
// when the lease is free, expired or already $2's. A takeover by another owner bumps the
// fencing token. It returns no row when another owner holds an unexpired lease.
const acquire = acquireLease + `
RETURNING fence`

const acquireLease = `INSERT INTO leases AS l (session, owner, fence, expires) VALUES ($1, $2, 1, now() + make_interval(secs => $3))
ON CONFLICT (session) DO UPDATE SET owner = EXCLUDED.owner, expires = EXCLUDED.expires,
	fence = CASE WHEN l.owner = EXCLUDED.owner THEN l.fence ELSE l.fence + 1 END
WHERE l.owner = EXCLUDED.owner OR l.expires <= now()`

// claimLease is acquire for an Update of Plugin $4 that starts a run, which also returns
// whether another Plugin of the session is recorded running or starting (latest status
// among $5): one that this process may not run, which the runner starts once it holds
// the lease (claim).
const claimLease = acquireLease + `
RETURNING fence, EXISTS (SELECT FROM plugins p WHERE p.session = $1 AND p.id <> $4 AND (p.running OR p.latest->>'status' = ANY($5)))`

// heldElsewhere reads session $1's lease when an owner other than $2 holds it unexpired,
// locking the row for the caller's transaction, so that no takeover commits between the
// check and the caller's write.
const heldElsewhere = `SELECT fence, expires FROM leases WHERE session = $1 AND owner <> $2 AND expires > now() FOR SHARE`

// orphans lists the sessions with a Plugin running whose lease no live owner holds, or
// that another Store handed to this one ($1) and that it does not run yet ($2) (an index
// of the running Plugins keeps it cheap however many Plugins are stopped).
const orphans = `SELECT DISTINCT p.session FROM plugins p LEFT JOIN leases l ON l.session = p.session
WHERE p.running AND (l.session IS NULL OR l.expires <= now() OR l.owner = $1 AND NOT l.session = ANY($2))`

// liveStatuses are the latest attempts' statuses of a run that is running or starting:
// an Update that records one takes the session's lease.
var liveStatuses = []string{string(dynamic.RunRunning), string(dynamic.RunWaiting), string(dynamic.RunAwaitingApproval), string(dynamic.RunStartingHost), string(dynamic.RunClientPending)}

// leaseState is what a Store knows of the leases it holds.
type leaseState struct {
	mu      sync.Mutex
	held    map[string]int64  // session → fencing token
	handoff map[string]string // session → the token of the Store that asked for it
	// claimed are the sessions whose lease an Update that starts a run took (claim) while
	// another of their Plugins was recorded running, since the last look for orphans,
	// which lists them once, so that the runner also starts the session's other Plugins
	// recorded running (after an outage, say), not only that one.
	claimed map[string]bool
	// claiming counts, per session, the Updates that took its lease in a transaction not
	// yet recorded here (claim): the database may already show the lease as this Store's,
	// which a look for orphans must not take for a session handed over to it.
	claiming map[string]int
	renewed  time.Time // when the last renewal that succeeded was sent
	watchers map[int]func(string)
	nextW    int
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// LeaseTTL is how long a session's lease lasts without a renewal (Options.LeaseTTL).
func (s *Store) LeaseTTL() time.Duration { return s.opts.LeaseTTL }

// AcquireSession takes session's lease for this Store, or renews it; false when another
// live Store holds it. The Store renews the leases it holds every third of LeaseTTL until
// it is closed, and Close gives them up.
func (s *Store) AcquireSession(ctx context.Context, session string) (bool, error) {
	if err := s.usable(); err != nil {
		return false, err
	}
	var fence int64
	err := s.writeOne(ctx, "a lease of session "+session, func(ctx context.Context) error {
		err := s.pool.QueryRow(ctx, acquire, session, s.token, s.opts.LeaseTTL.Seconds()).Scan(&fence)
		if errors.Is(err, pgx.ErrNoRows) {
			fence = 0
			return nil
		}
		return err
	})
	if err != nil || fence == 0 {
		return false, err
	}
	s.hold(session, fence)
	return true, nil
}

func (s *Store) hold(session string, fence int64) {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	s.holdLocked(session, fence)
}

// holdLocked records that the Store holds session's lease with fence, and reports
// whether it did not hold it (or not with that fence) before. s.leases.mu held.
func (s *Store) holdLocked(session string, fence int64) bool {
	old, ok := s.leases.held[session]
	s.leases.held[session] = fence
	if ok && old == fence {
		return false
	}
	s.logger().Debug("pgstore: this process holds the lease of a session", "session", session, "fence", fence)
	return true
}

// A claimed lease is what an Update that starts a run took: its fencing token, and
// whether another Plugin of the session was recorded running or starting (claimLease).
type claimed struct {
	fence  int64
	others bool
}

// startClaim records, before the transaction of an Update that took session's lease
// commits, that the lease may be this Store's before claim records it.
func (s *Store) startClaim(session string) {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	s.leases.claiming[session]++
}

// claim records the lease an Update that starts a run took, once its transaction ended
// (c zero when it did not commit), and ends startClaim's: when the Store did not hold it
// before and another Plugin of the session was recorded running, the next look for
// orphans lists the session (claimed).
func (s *Store) claim(session string, c claimed) {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	if c.fence != 0 && s.holdLocked(session, c.fence) && c.others {
		s.leases.claimed[session] = true
	}
	if s.leases.claiming[session]--; s.leases.claiming[session] <= 0 {
		delete(s.leases.claiming, session)
	}
}

// OrphanedSessions lists the sessions that have a Plugin running (Plugin.Running) and
// whose lease no live Store holds (their process ended, or never held one), that another
// Store handed over to this one at its request (RequestSession), or whose lease an Update
// of this Store took as it started a run while another of their Plugins was recorded
// running (once: the runner starts the session's other Plugins recorded running, which no
// process runs). A session whose lease this Store took meanwhile (an Update's claim, an
// AcquireSession) is no orphan: the database shows it as this Store's before the Store
// records it, and the query reads the local list first.
func (s *Store) OrphanedSessions(ctx context.Context) ([]string, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	s.leases.mu.Lock()
	held := make([]string, 0, len(s.leases.held))
	for k := range s.leases.held {
		if !s.leases.claimed[k] {
			held = append(held, k)
		}
	}
	claimed := maps.Clone(s.leases.claimed)
	s.leases.mu.Unlock()
	rows, err := s.pool.Query(ctx, orphans, s.token, held)
	var out []string
	if err == nil {
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		return nil, s.readError("the sessions without a live process", timedOut(ctx, err))
	}
	s.leases.mu.Lock()
	maps.DeleteFunc(s.leases.claimed, func(k string, _ bool) bool { return claimed[k] })
	out = slices.DeleteFunc(out, func(k string) bool {
		_, held := s.leases.held[k]
		return !claimed[k] && (held || s.leases.claiming[k] > 0)
	})
	s.leases.mu.Unlock()
	return out, nil
}

// OnLeaseLost calls lost, from the Store's renewal goroutine, with each session whose
// lease this Store lost, until cancel is called.
func (s *Store) OnLeaseLost(lost func(session string)) (cancel func()) {
	s.leases.mu.Lock()
	defer s.leases.mu.Unlock()
	k := s.leases.nextW
	s.leases.nextW++
	s.leases.watchers[k] = lost
	return func() {
		s.leases.mu.Lock()
		defer s.leases.mu.Unlock()
		delete(s.leases.watchers, k)
	}
}

// startRenewing starts the goroutine that renews the Store's leases; Close stops it.
func (s *Store) startRenewing() {
	s.leases.held = map[string]int64{}
	s.leases.handoff = map[string]string{}
	s.leases.claimed = map[string]bool{}
	s.leases.claiming = map[string]int{}
	s.leases.watchers = map[int]func(string){}
	s.leases.renewed = time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	s.leases.stop = cancel
	s.leases.done.Go(func() {
		t := time.NewTicker(s.opts.LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.renew(ctx)
			}
		}
	})
}

// renewLeases gives up the leases of owner $1 among sessions $2 whose session has no
// Plugin running or starting (latest status among $4), and extends the others by $3
// seconds; it returns each session it kept or gave up, and which.
const renewLeases = `WITH idle AS (DELETE FROM leases l WHERE l.owner = $1 AND l.session = ANY($2)
		AND NOT EXISTS (SELECT FROM plugins p WHERE p.session = l.session AND (p.running OR p.latest->>'status' = ANY($4)))
		RETURNING l.session),
	kept AS (UPDATE leases SET expires = now() + make_interval(secs => $3)
		WHERE owner = $1 AND session = ANY($2) AND session NOT IN (SELECT session FROM idle) RETURNING session)
SELECT session, true FROM idle UNION ALL SELECT session, false FROM kept`

type renewed struct {
	Session string
	Idle    bool
}

// renew extends every lease the Store holds, and gives up those of sessions with nothing
// running or starting, so that whichever process the session's client uses next can
// run them. A lease the database no longer gives this
// Store is lost; so is every lease when no renewal has succeeded for two thirds of
// LeaseTTL, before another process may take it over.
func (s *Store) renew(ctx context.Context) {
	s.leases.mu.Lock()
	sessions := make([]string, 0, len(s.leases.held))
	for k := range s.leases.held {
		sessions = append(sessions, k)
	}
	s.leases.mu.Unlock()
	if len(sessions) == 0 {
		s.leases.mu.Lock()
		s.leases.renewed = time.Now()
		s.leases.mu.Unlock()
		return
	}
	sent := time.Now()
	rctx, cancel := context.WithTimeout(ctx, s.opts.LeaseTTL/3)
	defer cancel()
	rows, err := s.pool.Query(rctx, renewLeases, s.token, sessions, s.opts.LeaseTTL.Seconds(), liveStatuses)
	var kept []string
	idle := map[string]bool{}
	if err == nil {
		var rs []renewed
		rs, err = pgx.CollectRows(rows, pgx.RowToStructByPos[renewed])
		for _, r := range rs {
			if r.Idle {
				idle[r.Session] = true
			}
			kept = append(kept, r.Session)
		}
	}
	s.leases.mu.Lock()
	var lost []string
	switch {
	case err != nil && ctx.Err() != nil:
		s.leases.mu.Unlock()
		return // closing
	case err != nil:
		// Give the leases up before they expire on the server, where another process may
		// take them: the next renewal would come a third of LeaseTTL later.
		if time.Since(s.leases.renewed) < s.opts.LeaseTTL*2/3 {
			s.leases.mu.Unlock()
			s.logger().Warn("pgstore: renewing this process's session leases failed; retrying", "dsn", s.dsn, "err", s.scrubbed(err))
			return
		}
		lost = sessions
	default:
		s.leases.renewed = sent
		lost = sessions
		for _, k := range kept {
			for i, x := range lost {
				if x == k {
					lost = append(lost[:i], lost[i+1:]...)
					break
				}
			}
		}
	}
	for _, k := range lost {
		delete(s.leases.held, k)
	}
	for k := range idle {
		delete(s.leases.held, k)
	}
	watchers := make([]func(string), 0, len(s.leases.watchers))
	for _, w := range s.leases.watchers {
		watchers = append(watchers, w)
	}
	s.leases.mu.Unlock()
	for _, k := range lost {
		s.logger().Warn("pgstore: this process lost the lease of a session; another process may run its Plugins now", "session", k, "err", err)
		for _, w := range watchers {
			w(k)
		}
	}
}

// stopRenewing stops the renewal goroutine and gives up the Store's leases, so that
// another process can take its sessions at once.
func (s *Store) stopRenewing() {
	s.leases.stop()
	s.leases.done.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := s.pool.Exec(ctx, "DELETE FROM leases WHERE owner = $1", s.token); err != nil {
		s.logger().Warn("pgstore: giving up this process's session leases at close; they expire by themselves", "dsn", s.dsn, "err", s.scrubbed(err))
	}
}

// fence refuses, in tx, a change of a Plugin of session while another live Store holds
// the session's lease; for a change that starts a run of Plugin starting it takes the
// lease for this Store instead when it can, and returns it, which the caller passes to
// startClaim before tx commits and to claim after. The lease's row stays locked until tx
// ends.
func (s *Store) fence(ctx context.Context, tx pgx.Tx, session, starting string) (claimed, error) {
	if starting != "" {
		var c claimed
		err := tx.QueryRow(ctx, claimLease, session, s.token, s.opts.LeaseTTL.Seconds(), starting, liveStatuses).Scan(&c.fence, &c.others)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return claimed{}, err
		}
	}
	var f int64
	var until time.Time
	err := tx.QueryRow(ctx, heldElsewhere, session, s.token).Scan(&f, &until)
	if errors.Is(err, pgx.ErrNoRows) {
		return claimed{}, nil
	}
	if err != nil {
		return claimed{}, err
	}
	return claimed{}, refusal{fmt.Errorf("%w: session %q's Plugins run in another process, whose lease on them lasts until %s unless renewed; nothing was changed here. Send this session's requests to that process, or wait until it ends and this one takes the session over",
		runner.ErrSessionElsewhere, session, until.UTC().Format(time.RFC3339Nano))}
}

// logger is Options.Logger, or slog.Default().
func (s *Store) logger() *slog.Logger {
	if s.opts.Logger != nil {
		return s.opts.Logger
	}
	return slog.Default()
}

// starts reports whether c starts a run: it marks the Plugin running, or records an
// attempt that is running or starting.
func starts(c runner.Change) bool {
	if c.Running != nil && *c.Running {
		return true
	}
	return c.Attempt != nil && slices.Contains(liveStatuses, string(c.Attempt.Status))
}
