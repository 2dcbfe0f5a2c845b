package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// sessionLock is the prefix of the advisory lock key, with the schema and the session,
// that every define of a session takes for its transaction, so that its caps' count and
// its insert are one step for every process on the database.
const sessionLock = "cordiskit pgstore session "

// held is what a define counts under its session's lock: the session's Plugins and
// Packages ($2 the session), each Plugin's Packages kept in its package_count.
const held = `held AS (SELECT count(*) AS plugins, coalesce(sum(package_count), 0) AS packages FROM plugins WHERE session = $2)`

// defineNew mints the Plugin's and the Package's numbers and inserts both unless the
// session is at a cap — runner.Definition.Admit's rule, with $10 the Plugin cap and $11
// the Package cap (0 for none): the counters' rows stay locked only while it runs. It
// notifies the other processes' Stores (notify.go) as it commits. Its one row is the
// session's counts, then the Plugin's id and the Package's number, NULL when refused.
const defineNew = `WITH ` + held + `,
admit AS (SELECT ($10::int <= 0 OR plugins < $10::int) AND ($11::int <= 0 OR packages < $11::int) AS ok FROM held),
pl AS (UPDATE counters SET value = value + 1 WHERE name = 'plugin' AND (SELECT ok FROM admit) RETURNING value),
pk AS (UPDATE counters SET value = value + 1 WHERE name = 'package' AND (SELECT ok FROM admit) RETURNING value),
p AS (INSERT INTO plugins (n, id, session, prefix, defined_by, listing_name, package_count) SELECT value, $1 || '-' || value, $2, $1, $3, $4, 1 FROM pl RETURNING n, id),
k AS (INSERT INTO packages (n, plugin, name, purpose, host, client) SELECT pk.value, p.n, $4, $5, $6, $7 FROM pk, p RETURNING n),
nt AS (SELECT pg_notify('` + changesChannel + `', json_build_object('schema', $8::text, 'origin', $3::text, 'session', $9::text, 'plugin', p.id, 'package', 'pkg-' || k.n, 'change', 'defined')::text) FROM p, k)
SELECT held.plugins, held.packages, d.id, d.n FROM held LEFT JOIN (SELECT p.id, k.n FROM p, k, nt) d ON true`

// definePackage adds a Package to Plugin $1 when it is session $2's and the session is
// under its Package cap ($8, 0 for none; runner.Definition.Admit's rule): it locks the
// Plugin's row, mints the Package's number, inserts the Package, prunes the Packages
// Options.KeepPackages ($7) lets go — those that are neither current, next, the latest
// attempt's, granted, nor among the newest $7 with the new one (the rule of
// sqlstore's KeepPackages) — keeps the Plugin's listing columns and returns them, as
// listingSelect reads them ($9 the Store's token), and notifies the other processes'
// Stores as it commits ($10 the schema, $11 the session as a notice names it). Its one
// row is whether the Plugin is the session's, the session's counts, then the Package's
// number and the listing, NULL when refused. It reads no Package's source.
const definePackage = `WITH p AS (SELECT n, current, next, latest_pkg FROM plugins WHERE id = $1 AND session = $2 FOR UPDATE),
` + held + `,
pk AS (UPDATE counters SET value = value + 1 WHERE name = 'package' AND EXISTS (SELECT FROM p) AND (SELECT $8::int <= 0 OR packages < $8::int FROM held) RETURNING value),
k AS (INSERT INTO packages (n, plugin, name, purpose, host, client) SELECT pk.value, p.n, $3, $4, $5, $6 FROM pk, p RETURNING n),
pruned AS (DELETE FROM packages x USING p WHERE $7::int > 0 AND x.plugin = p.n AND EXISTS (SELECT FROM k)
	AND x.n IS DISTINCT FROM p.current AND x.n IS DISTINCT FROM p.next AND x.n IS DISTINCT FROM p.latest_pkg
	AND x.n NOT IN (SELECT package FROM grants WHERE plugin = p.n)
	AND x.n NOT IN (SELECT n FROM packages WHERE plugin = p.n ORDER BY n DESC LIMIT greatest($7::int - 1, 0))
	RETURNING x.n),
listing AS (UPDATE plugins x SET package_count = x.package_count + 1 - (SELECT count(*) FROM pruned),
		listing_name = CASE WHEN x.next IS NULL AND x.current IS NULL THEN $3 ELSE x.listing_name END
	FROM k WHERE x.n = (SELECT n FROM p)
	RETURNING x.id, x.session, x.current, x.next, x.latest, x.defined_by <> $9 AS restored, x.package_count, x.listing_name, x.latest_client),
nt AS (SELECT pg_notify('` + changesChannel + `', json_build_object('schema', $10::text, 'origin', $9::text, 'session', $11::text, 'plugin', $1::text, 'package', 'pkg-' || k.n, 'change', 'defined')::text) FROM k)
SELECT EXISTS (SELECT FROM p), held.plugins, held.packages, d.* FROM held
	LEFT JOIN (SELECT k.n, listing.* FROM k, listing, nt) d ON true`

// Define records one Package (and, with d.Prefix, its new Plugin) unless its session is
// at one of d's caps, pruning that Plugin's old Packages when Options.KeepPackages says
// so: two statements in one round trip and one implicit transaction, the first of which
// takes the session's advisory lock (sessionLock), so that defines from every process on
// the database count and insert one at a time per session. The second counts under the
// lock: the store's connections are READ COMMITTED (Open), so it sees every define that
// committed before it.
func (s *Store) Define(ctx context.Context, d runner.Definition) (runner.Listing, runner.Package, error) {
	if err := s.usable(); err != nil {
		return runner.Listing{}, runner.Package{}, err
	}
	if err := checkText(d); err != nil {
		return runner.Listing{}, runner.Package{}, err
	}
	if strings.ContainsRune(d.PluginID, 0) {
		return runner.Listing{}, runner.Package{}, runner.ErrNotFound
	}
	k := runner.Package{Name: d.Name, Purpose: d.Purpose, Host: d.Host, Client: d.Client}
	var l runner.Listing
	what := "a define"
	if d.Prefix == "" {
		what = "a define of a package of " + d.PluginID
	}
	err := s.writeOne(ctx, what, func(ctx context.Context) error {
		b := &pgx.Batch{}
		b.Queue("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", sessionLock+s.schema+" "+d.Session)
		if d.Prefix != "" {
			b.Queue(defineNew, d.Prefix, d.Session, s.token, d.Name, d.Purpose, nullable(d.Host), nullable(d.Client), s.schema, noticeSession(d.Session), d.MaxPlugins, d.MaxPackages)
		} else {
			b.Queue(definePackage, d.PluginID, d.Session, d.Name, d.Purpose, nullable(d.Host), nullable(d.Client), s.opts.KeepPackages, d.MaxPackages, s.token, s.schema, noticeSession(d.Session))
		}
		br := s.pool.SendBatch(ctx, b)
		defer br.Close()
		if _, err := br.Exec(); err != nil {
			return err
		}
		var err error
		if d.Prefix != "" {
			l, k.ID, err = scanDefinedPlugin(br.QueryRow(), d)
		} else {
			l, k.ID, err = scanDefinedPackage(br.QueryRow(), d)
		}
		if err != nil {
			return err
		}
		return br.Close()
	})
	if err != nil {
		return runner.Listing{}, runner.Package{}, err
	}
	return l, k, nil
}

// scanDefinedPlugin reads defineNew's row: the new Plugin's Listing and its Package's
// id, or the caps' refusal.
func scanDefinedPlugin(row pgx.Row, d runner.Definition) (runner.Listing, string, error) {
	var plugins, packages int
	var id *string
	var n *int64
	if err := row.Scan(&plugins, &packages, &id, &n); err != nil {
		return runner.Listing{}, "", err
	}
	if id == nil || n == nil {
		return runner.Listing{}, "", refused(d, plugins, packages)
	}
	return runner.Listing{ID: *id, Session: d.Session, Name: d.Name, PackageCount: 1}, packageID(*n), nil
}

// scanDefinedPackage reads definePackage's row: the Plugin's Listing and the new
// Package's id, or the refusal (no such Plugin of the session's, or the caps').
func scanDefinedPackage(row pgx.Row, d runner.Definition) (runner.Listing, string, error) {
	var found bool
	var plugins, packages int
	var n *int64
	var id, session, name *string
	var count *int
	var current, next *int64
	var latest []byte
	var restored, latestClient *bool
	if err := row.Scan(&found, &plugins, &packages, &n, &id, &session, &current, &next, &latest, &restored, &count, &name, &latestClient); err != nil {
		return runner.Listing{}, "", err
	}
	if !found {
		return runner.Listing{}, "", refusal{runner.ErrNotFound}
	}
	if n == nil || id == nil {
		return runner.Listing{}, "", refused(d, plugins, packages)
	}
	l := runner.Listing{ID: *id, Session: *session, Name: *name, PackageCount: *count, Current: optionalID(current), Next: optionalID(next),
		Restored: *restored, LatestHasClient: *latestClient}
	if latest != nil {
		if err := json.Unmarshal(latest, &l.Latest); err != nil {
			return runner.Listing{}, "", fmt.Errorf("the latest attempt of %s is not valid JSON: %w", l.ID, err)
		}
	}
	return l, packageID(*n), nil
}

// refused is the refusal of a define the statement did not record at the session's
// counts: runner.Definition.Admit's, whose rule the statements apply.
func refused(d runner.Definition, plugins, packages int) error {
	if err := d.Admit(plugins, packages); err != nil {
		return refusal{err}
	}
	return fmt.Errorf("the define recorded nothing at %d Plugins and %d Packages, which runner.Definition.Admit admits (a fault of the store)", plugins, packages)
}

// checkText refuses a Definition with a NUL character (U+0000) in a field it stores:
// PostgreSQL's text cannot hold one.
func checkText(d runner.Definition) error {
	for _, f := range []struct{ name, value string }{
		{"session name", d.Session}, {"id prefix", d.Prefix}, {"name", d.Name}, {"purpose", d.Purpose},
		{"host half", d.Host}, {"client half", d.Client},
	} {
		if i := strings.IndexByte(f.value, 0); i >= 0 {
			return fmt.Errorf("pgstore: the define's %s holds a NUL character (U+0000) at byte %d, which the definition store (PostgreSQL text) cannot keep; nothing was changed. Remove it (write \\0 or \\u0000 in JavaScript source if the code needs one) and define again", f.name, i)
		}
	}
	return nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// lockPlugin reads Plugin id in tx and locks its row until tx ends, so that another
// process's change of it waits for this one.
func (s *Store) lockPlugin(ctx context.Context, tx pgx.Tx, id string) (stored, error) {
	recs, err := s.readPlugins(ctx, tx, selection{"p.id = ARG", id}, true)
	if err != nil {
		return stored{}, err
	}
	if len(recs) == 0 {
		return stored{}, refusal{runner.ErrNotFound}
	}
	return recs[0], nil
}

// Update applies c to Plugin id in one transaction, with the Plugin's row locked, and
// announces it to the other processes' Stores as it commits (notify.go). It refuses
// (runner.ErrSessionElsewhere) while another live Store holds the lease of the Plugin's
// session; a change that starts a run takes the lease for this Store when no live Store
// holds it (runner.SessionOwner).
func (s *Store) Update(ctx context.Context, id string, c runner.Change) (runner.Plugin, error) {
	if err := s.usable(); err != nil {
		return runner.Plugin{}, err
	}
	if strings.ContainsRune(id, 0) {
		return runner.Plugin{}, runner.ErrNotFound
	}
	var p runner.Plugin
	var lease claimed
	var claiming string // the session whose lease a transaction took (startClaim)
	err := s.write(ctx, "an update of "+id, func(ctx context.Context, tx pgx.Tx) error {
		rec, err := s.lockPlugin(ctx, tx, id)
		if err != nil {
			return err
		}
		starting := ""
		if starts(c) {
			starting = id
		}
		if lease, err = s.fence(ctx, tx, rec.p.Session, starting); err != nil {
			return err
		}
		if lease.fence != 0 && claiming == "" {
			claiming = rec.p.Session
			s.startClaim(claiming)
		}
		old := rec.p
		p = old.Clone()
		if err := p.Apply(c); err != nil {
			return refusal{err}
		}
		var latest []byte
		var latestPkg *int64
		if p.Latest != nil {
			if latest, err = json.Marshal(p.Latest); err != nil {
				return refusal{fmt.Errorf("pgstore: encoding the latest attempt of %s: %w", id, err)}
			}
			latestPkg = packageN(p.Latest.PackageID)
		}
		l := p.Listing()
		b := &pgx.Batch{}
		b.Queue(`UPDATE plugins SET current = $1, next = $2, future = $3, running = $4, latest = $5, latest_pkg = $6,
			listing_name = $7, package_count = $8, latest_client = $9 WHERE n = $10`,
			packageN(p.Current), packageN(p.Next), p.Grants.Future, p.Running, latest, latestPkg, l.Name, l.PackageCount, l.LatestHasClient, rec.n)
		if c.Grant != "" {
			b.Queue("INSERT INTO grants (plugin, package) VALUES ($1, $2) ON CONFLICT (plugin, package) DO NOTHING", rec.n, packageN(c.Grant))
		}
		var revoked []string
		if c.Revoke != "" && slices.Contains(old.Grants.Packages, c.Revoke) {
			b.Queue("DELETE FROM grants WHERE plugin = $1 AND package = $2", rec.n, packageN(c.Revoke))
			revoked = append(revoked, c.Revoke)
		}
		if old.Grants.Future && !p.Grants.Future {
			revoked = append(revoked, "")
		}
		for _, r := range revoked {
			b.Queue("INSERT INTO revocations (plugin, package) VALUES ($1, $2)", rec.n, r)
		}
		b.Queue(notifyChange, s.schema, s.token, noticeSession(old.Session), id, "", string(runner.Updated))
		return tx.SendBatch(ctx, b).Close()
	})
	if claiming != "" {
		if err != nil {
			lease = claimed{}
		}
		s.claim(claiming, lease)
	}
	if err != nil {
		return runner.Plugin{}, err
	}
	return p, nil
}

// Remove deletes Plugin id with its Packages, grants and revocations, unless another
// live Store holds its session's lease (runner.ErrSessionElsewhere).
func (s *Store) Remove(ctx context.Context, id string) error {
	if err := s.usable(); err != nil {
		return err
	}
	if strings.ContainsRune(id, 0) {
		return runner.ErrNotFound
	}
	return s.write(ctx, "the removal of "+id, func(ctx context.Context, tx pgx.Tx) error {
		var session string
		err := tx.QueryRow(ctx, "SELECT session FROM plugins WHERE id = $1 FOR UPDATE", id).Scan(&session)
		if errors.Is(err, pgx.ErrNoRows) {
			return refusal{runner.ErrNotFound}
		} else if err != nil {
			return err
		}
		if _, err := s.fence(ctx, tx, session, ""); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, "DELETE FROM plugins WHERE id = $1", id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, notifyChange, s.schema, s.token, noticeSession(session), id, "", string(runner.Undefined))
		return err
	})
}

// Mint returns the next id of counter k, committed before it is returned.
func (s *Store) Mint(ctx context.Context, k runner.Counter) (string, error) {
	if k != runner.CounterRun && k != runner.CounterApproval {
		return "", fmt.Errorf("pgstore: unknown counter %q (the counters are %q and %q)", k, runner.CounterRun, runner.CounterApproval)
	}
	if err := s.usable(); err != nil {
		return "", err
	}
	var v int64
	err := s.writeOne(ctx, "a new "+string(k)+" id", func(ctx context.Context) error {
		err := s.pool.QueryRow(ctx, "UPDATE counters SET value = value + 1 WHERE name = $1 RETURNING value", string(k)).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("the %s counter is missing (the counters table was edited); opening the store again restores it", k)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%d", k, v), nil
}

// A refusal is an error of the caller's (no such Plugin, a change naming a Package the
// Plugin does not have) that write returns as it is.
type refusal struct{ error }

func (r refusal) Unwrap() error { return r.error }

// maxAttempts bounds how often a write is made again after the server aborted it for a
// deadlock or a serialization failure, or when it never left this process.
const maxAttempts = 3

// write runs fn in one transaction and commits it. See do.
func (s *Store) write(ctx context.Context, what string, fn func(context.Context, pgx.Tx) error) error {
	return s.do(ctx, what, func(ctx context.Context) (bool, error) {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			return false, err
		}
		if err := fn(ctx, tx); err != nil {
			_ = tx.Rollback(ctx)
			return false, err
		}
		return true, tx.Commit(ctx)
	})
}

// writeOne runs fn, which makes one statement on the pool: its own transaction, in one
// round trip. See do.
func (s *Store) writeOne(ctx context.Context, what string, fn func(context.Context) error) error {
	return s.do(ctx, what, func(ctx context.Context) (bool, error) { return true, fn(ctx) })
}

// do makes a write, attempt, which reports whether an error may have come after the
// server received the change (a commit, or a statement that is its own transaction). It
// does not end when ctx is cancelled, but after Options.Timeout: a write that reached the
// server is seen through, and never reported as failed when it committed. A refusal is
// returned as it is, anything else as an *Error whose Unknown says whether the change may
// have been recorded.
func (s *Store) do(ctx context.Context, what string, attempt func(context.Context) (bool, error)) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var err error
	var committing bool
	for range maxAttempts {
		committing, err = attempt(ctx)
		if err == nil {
			return nil
		}
		if r, ok := errors.AsType[refusal](err); ok {
			return r.error
		}
		if !retryable(err) || ctx.Err() != nil {
			break
		}
	}
	return &Error{Op: "recording " + what + " in", DSN: s.dsn, Err: timedOut(ctx, err), Write: true, password: s.password(),
		Unknown: committing && !isPgError(err) && !pgconn.SafeToRetry(err)}
}
