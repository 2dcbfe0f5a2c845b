package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configures a Store. A nil *Options means defaults.
type Options struct {
	// Schema is the PostgreSQL schema (namespace) that holds the store's tables, created
	// when missing. Empty means "cordis". Runtimes that must not share definitions use one
	// database with a schema each, or a database each.
	Schema string

	// KeepPackages, when positive, prunes at each define the Packages of that Plugin that
	// are neither current, next, the latest attempt's, granted, nor among its newest
	// KeepPackages. Zero (the default) keeps every Package.
	KeepPackages int

	// Timeout bounds each call. A call does not end when its caller's context is
	// cancelled: a write that reached the server is seen through, and a read answers as
	// the other stores' do, leaving it to the runner to say what a cancelled call means.
	// Zero means 30 seconds.
	Timeout time.Duration

	// MaxConns is the most connections the Store opens. Zero means pgxpool's default
	// (the larger of 4 and the number of CPUs), or the DSN's pool_max_conns.
	MaxConns int32

	// Logger receives the counters Open raised (see "Ids" in the package doc) and the
	// leases taken and lost. Nil means slog.Default().
	Logger *slog.Logger

	// LeaseTTL is how long a session's lease lasts unless renewed (the Store renews the
	// leases it holds every third of it): the longest a session's Plugins stay stopped
	// after its process dies, before another process runs them. Zero means 10 seconds.
	LeaseTTL time.Duration
}

// ErrUnreachable reports a server Open could not connect to (not running, not reachable,
// or refusing the DSN's user, password or database).
var ErrUnreachable = errors.New("pgstore: the PostgreSQL server cannot be reached")

// ErrRefused reports a database Open will not use: a schema that holds another
// application's tables, or the store's tables at a schema version newer than this build
// knows. The database is left as it was.
var ErrRefused = errors.New("pgstore: the database is not a usable definition store")

// ErrInvalidDSN reports a DSN that is not a PostgreSQL connection string.
var ErrInvalidDSN = errors.New("pgstore: the DSN is not a valid PostgreSQL connection string")

// ErrClosed reports a call on a closed Store.
var ErrClosed = errors.New("pgstore: the definition store is closed")

// A Store is a runner.Store kept in a PostgreSQL database, shared by every process that
// opens it. Close it when the runner is done.
type Store struct {
	pool   *pgxpool.Pool
	opts   Options
	dsn    string // redacted
	schema string
	// token marks the Plugins this Store defined: the others were read back
	// (Plugin.Restored).
	token  string
	closed atomic.Bool
	leases leaseState // the sessions this Store runs (lease.go)
	watch  watchState // the other Stores' changes (notify.go)
}

var _ runner.Store = (*Store)(nil)

// Open connects to the PostgreSQL database dsn names (a URL, postgres://user:pw@host/db,
// or keyword/value pairs, "host=… dbname=…"; see the package doc), creates or migrates
// the store's schema, and returns the Store. It refuses, with an error that names the DSN
// without its password and says what to do: a DSN that does not parse (ErrInvalidDSN), a
// server it cannot reach or that refuses it (ErrUnreachable), another application's schema
// and a schema version newer than this build knows (ErrRefused). It never resets a
// database.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	s := &Store{dsn: Redact(dsn)}
	if opts != nil {
		s.opts = *opts
	}
	s.schema = s.opts.Schema
	if s.schema == "" {
		s.schema = "cordis"
	}
	if s.opts.Timeout <= 0 {
		s.opts.Timeout = 30 * time.Second
	}
	if s.opts.LeaseTTL <= 0 {
		s.opts.LeaseTTL = 10 * time.Second
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	s.token = hex.EncodeToString(b[:])

	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s. Write it as a URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE) or as keyword/value pairs (host=HOST dbname=DATABASE user=USER)", ErrInvalidDSN, s.dsn, scrub(err.Error(), dsn))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if s.opts.MaxConns > 0 {
		cfg.MaxConns = s.opts.MaxConns
	}
	// Every connection finds the store's tables, and only them, unqualified.
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{s.schema}.Sanitize()
	// The store's statements are prepared once per connection (pgx's statement cache)
	// and every one finds its rows through an index whatever its arguments: a plan made
	// once serves them all, where a plan made afresh for each call costs more than the
	// call (a define's statement plans in about as long as it runs).
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	// Each statement sees what committed before it started (READ COMMITTED), whatever the
	// server's default: a define counts its session's caps in the statement after the one
	// that takes the session's lock (Define, in store.go).
	cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "read committed"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.unreachable(err, dsn, cfg.ConnConfig.Password)
	}
	s.pool = pool
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, s.unreachable(err, dsn, cfg.ConnConfig.Password)
	}
	raised, err := s.opening(ctx)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.logRaised(raised)
	s.startRenewing()
	s.startListening(ctx)
	return s, nil
}

func (s *Store) unreachable(err error, dsn, password string) error {
	return fmt.Errorf("%w: %s: %s. Check that the server is running and accepts connections at the DSN's host and port, and that its user, password and database are right", ErrUnreachable, s.dsn, scrub(err.Error(), dsn, password))
}

// openLock is the advisory lock key of a store's opening transactions, so that processes
// opening one schema at once migrate it one at a time.
const openLock = "cordiskit pgstore open "

// opening is the transaction that opens the store: it creates the schema or checks it,
// migrates it forward and raises the counters that are below the stored ids, all of it
// or nothing.
func (s *Store) opening(ctx context.Context) (raised []raise, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", openLock+s.schema); err != nil {
			return s.dbError("locking", err)
		}
		if err := s.migrate(ctx, tx, migrations); err != nil {
			return err
		}
		raised, err = s.raiseCounters(ctx, tx)
		return err
	})
	return raised, err
}

// migrate creates the schema when it is missing, checks that it is a definition store
// of a version this build knows, and runs the missing steps of steps, in tx.
func (s *Store) migrate(ctx context.Context, tx pgx.Tx, steps []string) error {
	var exists, hasVersion bool
	var tables int
	err := tx.QueryRow(ctx, `SELECT
		EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1),
		to_regclass(quote_ident($1) || '.store_version') IS NOT NULL,
		(SELECT count(*) FROM pg_tables WHERE schemaname = $1)`, s.schema).Scan(&exists, &hasVersion, &tables)
	if err != nil {
		return s.dbError("reading the schema of", err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{s.schema}.Sanitize()); err != nil {
			return s.dbError("creating schema "+s.schema+" in", err)
		}
	}
	if !hasVersion {
		if tables > 0 {
			return fmt.Errorf("%w: schema %s of %s holds %d tables but no definition store; it is another application's, and is left as it was. Give the store a schema of its own (pgstore.Options.Schema), or another database", ErrRefused, s.schema, s.dsn, tables)
		}
		if _, err := tx.Exec(ctx, versionTable); err != nil {
			return s.dbError("creating the store in", err)
		}
	}
	var app string
	var version int
	if err := tx.QueryRow(ctx, "SELECT application, version FROM store_version").Scan(&app, &version); err != nil {
		return fmt.Errorf("%w: schema %s of %s has a store_version table this store did not write (%v); it is left as it was. Give the store a schema of its own (pgstore.Options.Schema)", ErrRefused, s.schema, s.dsn, err)
	}
	switch {
	case app != application:
		return fmt.Errorf("%w: schema %s of %s belongs to %q, not to a cordis definition store; it is left as it was. Give the store a schema of its own (pgstore.Options.Schema)", ErrRefused, s.schema, s.dsn, app)
	case version > len(steps):
		return fmt.Errorf("%w: the definition store in schema %s of %s has schema version %d, newer than the %d this build of cordiskit knows; a newer cordiskit wrote it. Upgrade this program (every process sharing the store must run a build that knows its schema); the database is left as it was", ErrRefused, s.schema, s.dsn, version, len(steps))
	}
	for v := version; v < len(steps); v++ {
		if _, err := tx.Exec(ctx, steps[v]); err != nil {
			return fmt.Errorf("pgstore: migrating schema %s of %s from version %d to %d: %s (nothing was changed)", s.schema, s.dsn, v, v+1, s.scrubbed(err))
		}
	}
	if version < len(steps) {
		if _, err := tx.Exec(ctx, "UPDATE store_version SET version = $1", len(steps)); err != nil {
			return s.dbError("migrating", err)
		}
	}
	return nil
}

// dbError explains a database error met while doing what.
func (s *Store) dbError(what string, err error) error {
	return fmt.Errorf("pgstore: %s %s: %s", what, s.dsn, s.scrubbed(err))
}

// scrubbed is err's text without the DSN's password. The driver's errors do not hold it;
// this makes sure.
func (s *Store) scrubbed(err error) string { return scrub(err.Error(), "", s.password()) }

func (s *Store) password() string { return s.pool.Config().ConnConfig.Password }

// DSN returns the store's DSN, its password masked.
func (s *Store) DSN() string { return s.dsn }

// Schema returns the PostgreSQL schema that holds the store's tables.
func (s *Store) Schema() string { return s.schema }

// Close gives up the session leases the Store holds and closes its connections, waiting
// for calls in progress. Later calls fail with ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.stopListening()
	s.stopRenewing()
	s.pool.Close()
	return nil
}

// usable refuses calls on a closed Store.
func (s *Store) usable() error {
	if s.closed.Load() {
		return fmt.Errorf("%w: %s was closed; the runner must not outlive its Store", ErrClosed, s.dsn)
	}
	return nil
}

// errTimedOut is the cause of a call's context ended by Options.Timeout.
var errTimedOut = errors.New("the call took longer than pgstore.Options.Timeout")

// bound is the context of a call: ctx's values, without its cancellation, cancelled
// after Options.Timeout with cause errTimedOut. It has no deadline, on purpose: the
// driver sets a connection's deadline before and after every statement of a context
// that has one, which cost more than a bare statement here (65 µs beside 50 µs).
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	t := time.AfterFunc(s.opts.Timeout, func() { cancel(errTimedOut) })
	return ctx, func() { t.Stop(); cancel(nil) }
}

// timedOut adds to err the cause of ctx's end, when bound's timer ended it.
func timedOut(ctx context.Context, err error) error {
	if c := context.Cause(ctx); errors.Is(c, errTimedOut) && !errors.Is(err, errTimedOut) {
		return fmt.Errorf("%w: %w", c, err)
	}
	return err
}
