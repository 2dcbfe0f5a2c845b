package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// defineNew mints the Plugin's and the Package's numbers and inserts both: one statement,
// so one transaction, and the counters' rows stay locked only while it runs.
const defineNew = `WITH pl AS (UPDATE counters SET value = value + 1 WHERE name = 'plugin' RETURNING value),
pk AS (UPDATE counters SET value = value + 1 WHERE name = 'package' RETURNING value),
p AS (INSERT INTO plugins (n, id, session, prefix, defined_by) SELECT value, $1 || '-' || value, $2, $1, $3 FROM pl RETURNING n, id),
k AS (INSERT INTO packages (n, plugin, name, purpose, host, client) SELECT pk.value, p.n, $4, $5, $6, $7 FROM pk, p RETURNING n)
SELECT p.id, k.n FROM p, k`

// definePackage mints a Package's number and inserts it into Plugin $1.
const definePackage = `WITH pk AS (UPDATE counters SET value = value + 1 WHERE name = 'package' RETURNING value)
INSERT INTO packages (n, plugin, name, purpose, host, client) SELECT value, $1, $2, $3, $4, $5 FROM pk RETURNING n`

// Define records one Package (and, with d.Prefix, its new Plugin) in one transaction,
// pruning that Plugin's old Packages when Options.KeepPackages says so.
func (s *Store) Define(ctx context.Context, d runner.Definition) (runner.Plugin, runner.Package, error) {
	if err := s.usable(); err != nil {
		return runner.Plugin{}, runner.Package{}, err
	}
	k := runner.Package{Name: d.Name, Purpose: d.Purpose, Host: d.Host, Client: d.Client}
	if d.Prefix != "" {
		var id string
		var n int64
		err := s.writeOne(ctx, "a define", func(ctx context.Context) error {
			return s.pool.QueryRow(ctx, defineNew, d.Prefix, d.Session, s.token, d.Name, d.Purpose, nullable(d.Host), nullable(d.Client)).Scan(&id, &n)
		})
		if err != nil {
			return runner.Plugin{}, runner.Package{}, err
		}
		k.ID = packageID(n)
		return runner.Plugin{ID: id, Session: d.Session, Packages: []runner.Package{k}}, k, nil
	}
	var p runner.Plugin
	err := s.write(ctx, "a define of a package of "+d.PluginID, func(ctx context.Context, tx pgx.Tx) error {
		rec, err := s.lockPlugin(ctx, tx, d.PluginID)
		if err != nil {
			return err
		}
		if rec.p.Session != d.Session {
			return refusal{runner.ErrNotFound}
		}
		p = rec.p
		var n int64
		if err := tx.QueryRow(ctx, definePackage, rec.n, d.Name, d.Purpose, nullable(d.Host), nullable(d.Client)).Scan(&n); err != nil {
			return err
		}
		k.ID = packageID(n)
		p.Packages = append(p.Packages, k)
		pruned := prunable(p, s.opts.KeepPackages)
		if len(pruned) == 0 {
			return nil
		}
		ns := make([]int64, len(pruned))
		for i, id := range pruned {
			ns[i] = *packageN(id)
		}
		if _, err := tx.Exec(ctx, "DELETE FROM packages WHERE n = ANY($1)", ns); err != nil {
			return err
		}
		p.Packages = slices.DeleteFunc(p.Packages, func(x runner.Package) bool { return slices.Contains(pruned, x.ID) })
		return nil
	})
	if err != nil {
		return runner.Plugin{}, runner.Package{}, err
	}
	return p, k, nil
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
	recs, err := s.readPlugins(ctx, tx, "WHERE p.id = $2 FOR UPDATE OF p", id)
	if err != nil {
		return stored{}, err
	}
	if len(recs) == 0 {
		return stored{}, refusal{runner.ErrNotFound}
	}
	return recs[0], nil
}

// Update applies c to Plugin id in one transaction, with the Plugin's row locked.
func (s *Store) Update(ctx context.Context, id string, c runner.Change) (runner.Plugin, error) {
	if err := s.usable(); err != nil {
		return runner.Plugin{}, err
	}
	var p runner.Plugin
	err := s.write(ctx, "an update of "+id, func(ctx context.Context, tx pgx.Tx) error {
		rec, err := s.lockPlugin(ctx, tx, id)
		if err != nil {
			return err
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
		b := &pgx.Batch{}
		b.Queue("UPDATE plugins SET current = $1, next = $2, future = $3, running = $4, latest = $5, latest_pkg = $6 WHERE n = $7",
			packageN(p.Current), packageN(p.Next), p.Grants.Future, p.Running, latest, latestPkg, rec.n)
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
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return runner.Plugin{}, err
	}
	return p, nil
}

// Remove deletes Plugin id with its Packages, grants and revocations.
func (s *Store) Remove(ctx context.Context, id string) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.writeOne(ctx, "the removal of "+id, func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, "DELETE FROM plugins WHERE id = $1", id)
		if err == nil && tag.RowsAffected() == 0 {
			return refusal{runner.ErrNotFound}
		}
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
	return &Error{Op: "recording " + what + " in", DSN: s.dsn, Err: err, Write: true, password: s.password(),
		Unknown: committing && !isPgError(err) && !pgconn.SafeToRetry(err)}
}
