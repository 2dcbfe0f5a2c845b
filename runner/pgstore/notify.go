package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var _ runner.ChangeNotifier = (*Store)(nil)

// changesChannel is the PostgreSQL NOTIFY channel of every store's changes; a
// notification names its schema, so stores in several schemas of one database share it.
const changesChannel = "cordis_store_changes"

// notifyChange is the statement that announces a removal or an Update, in the change's
// transaction (PostgreSQL delivers it only once the transaction commits): $1 the
// schema, $2 the Store's token, $3 the session, $4 the Plugin, $5 the Package ("" but
// for a define, whose statements announce it themselves), $6 the change
// (runner.DefinitionChange).
const notifyChange = `SELECT pg_notify('` + changesChannel + `', json_build_object('schema', $1::text, 'origin', $2::text, 'session', $3::text, 'plugin', $4::text, 'package', $5::text, 'change', $6::text)::text)`

// noticeSession is session as a notification names it: "" (no session to tell) for a
// name so long that the notification would pass PostgreSQL's 8000-byte limit and fail
// the change it announces.
func noticeSession(session string) string {
	if len(session) > 4000 {
		return ""
	}
	return session
}

// handoffChannel carries RequestSession's requests: {schema, origin, session}.
const handoffChannel = "cordis_store_handoff"

// RequestSession asks the Store that holds session's lease, if another one does, to give
// it up (runner.SessionOwner): its runner stops the session's runs and releases the
// lease, and the session's running Plugins become orphans that a runner adopts.
func (s *Store) RequestSession(ctx context.Context, session string) error {
	if err := s.usable(); err != nil {
		return err
	}
	if len(session) > 4000 {
		return fmt.Errorf("pgstore: a session name of %d bytes is too long to hand over between processes (at most 4000)", len(session))
	}
	return s.writeOne(ctx, "a request for session "+session, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `SELECT pg_notify('`+handoffChannel+`', json_build_object('schema', $1::text, 'origin', $2::text, 'session', $3::text)::text)`, s.schema, s.token, session)
		return err
	})
}

// ReleaseSession gives up session's lease if this Store holds it (runner.SessionOwner):
// to the Store that asked for it (RequestSession), which adopts the session next, or to
// no one.
func (s *Store) ReleaseSession(ctx context.Context, session string) error {
	if err := s.usable(); err != nil {
		return err
	}
	s.leases.mu.Lock()
	delete(s.leases.held, session)
	to, asked := s.leases.handoff[session]
	delete(s.leases.handoff, session)
	s.leases.mu.Unlock()
	return s.writeOne(ctx, "the release of session "+session, func(ctx context.Context) error {
		if asked {
			_, err := s.pool.Exec(ctx, `UPDATE leases SET owner = $3, fence = fence + 1, expires = now() + make_interval(secs => $4)
				WHERE session = $1 AND owner = $2`, session, s.token, to, s.opts.LeaseTTL.Seconds())
			return err
		}
		_, err := s.pool.Exec(ctx, "DELETE FROM leases WHERE session = $1 AND owner = $2", session, s.token)
		return err
	})
}

// handOver gives up session at another Store's request, if this Store holds it: it
// stops renewing the lease and tells the watchers, whose runner stops the session's runs
// and then releases the lease.
func (s *Store) handOver(session, to string) {
	s.leases.mu.Lock()
	_, ok := s.leases.held[session]
	delete(s.leases.held, session)
	if ok {
		s.leases.handoff[session] = to
	}
	watchers := make([]func(string), 0, len(s.leases.watchers))
	for _, w := range s.leases.watchers {
		watchers = append(watchers, w)
	}
	s.leases.mu.Unlock()
	if !ok {
		return
	}
	s.logger().Info("pgstore: another process asked for a session this process runs; handing it over", "session", session)
	if len(watchers) == 0 {
		_ = s.ReleaseSession(context.Background(), session)
	}
	for _, w := range watchers {
		w(session)
	}
}

// A notice is the payload of a change's notification.
type notice struct {
	Schema, Origin, Session, Plugin, Package, Change string
}

// listenHeartbeat is how long the listening connection may stay silent before the Store
// checks it with a ping (bounded by as much again): a connection that died without a
// word (a network partition) is replaced within twice this.
const listenHeartbeat = 5 * time.Second

// watchState is the Store's LISTEN connection and who hears it.
type watchState struct {
	mu       sync.RWMutex
	watchers map[int]func(runner.ChangeNotice)
	next     int
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// WatchChanges calls changed with each change another process's Store recorded in this
// store's schema (runner.ChangeNotifier) — a define, a removal, an Update — within a
// round trip of its commit, until cancel is called (cancel waits for a call in
// progress). When the listening connection was lost and the Store listens again, it calls
// changed with a notice whose Missed is set: what was committed meanwhile was announced
// to no one, and is in the store for a read made after that call. changed runs on the
// Store's listening goroutine and must not block.
func (s *Store) WatchChanges(changed func(runner.ChangeNotice)) (cancel func()) {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	k := s.watch.next
	s.watch.next++
	s.watch.watchers[k] = changed
	return func() {
		s.watch.mu.Lock()
		defer s.watch.mu.Unlock()
		delete(s.watch.watchers, k)
	}
}

// tell calls every watcher with n.
func (s *Store) tell(n runner.ChangeNotice) {
	s.watch.mu.RLock()
	defer s.watch.mu.RUnlock()
	for _, w := range s.watch.watchers {
		w(n)
	}
}

// startListening LISTENs for the changes of other Stores on a connection of its own,
// before it returns (so that a change committed after Open is heard), and starts the
// goroutine that waits for them, reconnecting while the server is away (after 0.1 s,
// then twice as long each time, up to 5 s) and telling the watchers Missed each time it
// listens again; Close stops it.
func (s *Store) startListening(ctx context.Context) {
	s.watch.watchers = map[int]func(runner.ChangeNotice){}
	conn, err := s.connectListener(ctx)
	if err != nil {
		s.logger().Warn("pgstore: listening for other processes' changes; retrying", "dsn", s.dsn, "err", s.scrubbed(err))
	}
	lctx, cancel := context.WithCancel(context.Background())
	s.watch.stop = cancel
	s.watch.done.Go(func() {
		// A connection not handed to listen — Open's, when Close comes before this
		// goroutine first runs, or a reconnect that succeeded as Close cancelled — is
		// closed here, on every way out.
		defer func() {
			if conn != nil {
				cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				_ = conn.Close(cctx)
			}
		}()
		wait := 100 * time.Millisecond
		for lctx.Err() == nil {
			if conn != nil {
				if err := s.listen(lctx, conn); lctx.Err() == nil {
					s.logger().Warn("pgstore: listening for other processes' changes; reconnecting", "dsn", s.dsn, "err", s.scrubbed(err))
				}
				conn = nil
			}
			select {
			case <-lctx.Done():
				return
			case <-time.After(wait):
				wait = min(wait*2, 5*time.Second)
			}
			if conn, err = s.connectListener(lctx); err == nil {
				wait = 100 * time.Millisecond
				s.logger().Info("pgstore: listening for other processes' changes again; what they changed meanwhile is read again", "dsn", s.dsn)
				s.tell(runner.ChangeNotice{Missed: true})
			}
		}
	})
}

// listenerName is the application_name of a Store's listening connection, as
// pg_stat_activity shows it.
const listenerName = "cordis pgstore listener"

// connectListener opens a connection that LISTENs on changesChannel and handoffChannel.
func (s *Store) connectListener(ctx context.Context) (*pgx.Conn, error) {
	cfg := s.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = listenerName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel+"; LISTEN "+handoffChannel); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return conn, nil
}

// listen delivers conn's notifications until it fails or ctx ends, and closes it. A
// connection silent for listenHeartbeat is pinged, so that one that died without a word
// fails too.
func (s *Store) listen(ctx context.Context, conn *pgx.Conn) error {
	defer conn.Close(context.WithoutCancel(ctx))
	for {
		wctx, cancel := context.WithTimeout(ctx, listenHeartbeat)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if err != nil && ctx.Err() == nil && pgconn.Timeout(err) {
			pctx, cancel := context.WithTimeout(ctx, listenHeartbeat)
			err = conn.Ping(pctx)
			cancel()
			if err == nil {
				continue
			}
		}
		if err != nil {
			return err
		}
		s.deliver(n)
	}
}

// deliver hands notification n to the watchers, or, on handoffChannel, hands a session
// over: unless it is another schema's, this Store's own, or not a notice at all.
func (s *Store) deliver(n *pgconn.Notification) {
	var c notice
	if json.Unmarshal([]byte(n.Payload), &c) != nil || c.Schema != s.schema || c.Origin == s.token || c.Session == "" {
		return
	}
	if n.Channel == handoffChannel {
		s.handOver(c.Session, c.Origin)
		return
	}
	switch ch := runner.DefinitionChange(c.Change); ch {
	case runner.Defined, runner.Undefined, runner.Updated:
		s.tell(runner.ChangeNotice{Session: c.Session, PluginID: c.Plugin, PackageID: c.Package, Change: ch})
	}
}

// stopListening ends the listening goroutine and waits for it.
func (s *Store) stopListening() {
	s.watch.stop()
	s.watch.done.Wait()
}
