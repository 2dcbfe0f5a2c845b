package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
)

func packageID(n int64) string { return "pkg-" + strconv.FormatInt(n, 10) }

// packageN is the row key of Package id, or nil for "" (no Package). Every id the store
// is given names one of its Packages (runner.Plugin.Apply checks), so it parses.
func packageN(id string) *int64 {
	if id == "" {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "pkg-"), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

func optionalID(n *int64) string {
	if n == nil {
		return ""
	}
	return packageID(*n)
}

// A selection names the Plugins a read returns: a condition on plugins p, whose one
// argument is written ARG, or every Plugin when where is "".
type selection struct {
	where string
	arg   any
}

var everyPlugin = selection{}

// A statement is SQL with its arguments.
type statement struct {
	sql  string
	args []any
}

// statements are the three statements of a read: the Plugins, their Packages and their
// grants. Each returns its rows in key order, so a Plugin's Packages come in creation
// order and its grants in grant order. token is the Store's (Plugin.Restored).
func (sel selection) statements(token string, lock bool) [3]statement {
	var plugins, packages, grants statement
	plugins = statement{"SELECT p.n, p.id, p.session, p.current, p.next, p.future, p.running, p.latest, p.defined_by <> $1 FROM plugins p", []any{token}}
	packages = statement{"SELECT x.plugin, x.n, x.name, x.purpose, x.host, x.client FROM packages x", nil}
	grants = statement{"SELECT x.plugin, x.package FROM grants x", nil}
	if sel.where != "" {
		plugins.sql += " WHERE " + strings.ReplaceAll(sel.where, "ARG", "$2")
		plugins.args = append(plugins.args, sel.arg)
		for _, st := range []*statement{&packages, &grants} {
			st.sql += " JOIN plugins p ON p.n = x.plugin WHERE " + strings.ReplaceAll(sel.where, "ARG", "$1")
			st.args = []any{sel.arg}
		}
	}
	plugins.sql += " ORDER BY p.n"
	if lock {
		plugins.sql += " FOR UPDATE OF p"
	}
	packages.sql += " ORDER BY x.n"
	grants.sql += " ORDER BY x.seq"
	return [3]statement{plugins, packages, grants}
}

// stored is a Plugin with its row key.
type stored struct {
	n int64
	p runner.Plugin
}

// readPlugins reads the Plugins sel names in one round trip. From the pool (tx nil) the
// three statements run in one read-only repeatable-read transaction, so they see one
// snapshot; in tx, lock locks the Plugins' rows (FOR UPDATE), so that nothing of theirs
// changes until tx ends.
func (s *Store) readPlugins(ctx context.Context, tx pgx.Tx, sel selection, lock bool) ([]stored, error) {
	b := &pgx.Batch{}
	var br pgx.BatchResults
	if tx == nil {
		b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
		s.queueRead(b, sel, false)
		b.Queue("COMMIT")
		br = s.pool.SendBatch(ctx, b)
	} else {
		s.queueRead(b, sel, lock)
		br = tx.SendBatch(ctx, b)
	}
	var recs []stored
	err := func() error {
		if tx == nil {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		var err error
		if recs, err = readResults(br); err != nil {
			return err
		}
		if tx == nil {
			_, err = br.Exec()
		}
		return err
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return recs, err
}

// queueRead queues the three statements that read the Plugins sel names.
func (s *Store) queueRead(b *pgx.Batch, sel selection, lock bool) {
	for _, st := range sel.statements(s.token, lock) {
		b.Queue(st.sql, st.args...)
	}
}

// readResults reads the results of queueRead's statements.
func readResults(br pgx.BatchResults) ([]stored, error) {
	rows, _ := br.Query()
	recs, err := pgx.CollectRows(rows, scanPlugin)
	if err != nil {
		return nil, err
	}
	byN := make(map[int64]*stored, len(recs))
	for i := range recs {
		byN[recs[i].n] = &recs[i]
	}
	var plugin, n int64
	var k runner.Package
	var host, client *string
	rows, _ = br.Query()
	_, err = pgx.ForEachRow(rows, []any{&plugin, &n, &k.Name, &k.Purpose, &host, &client}, func() error {
		if rec := byN[plugin]; rec != nil {
			k.ID, k.Host, k.Client = packageID(n), deref(host), deref(client)
			rec.p.Packages = append(rec.p.Packages, k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var pkg int64
	rows, _ = br.Query()
	_, err = pgx.ForEachRow(rows, []any{&plugin, &pkg}, func() error {
		if rec := byN[plugin]; rec != nil {
			rec.p.Grants.Packages = append(rec.p.Grants.Packages, packageID(pkg))
		}
		return nil
	})
	return recs, err
}

// scanPlugin reads one row of the Plugins' statement.
func scanPlugin(row pgx.CollectableRow) (stored, error) {
	var (
		rec           stored
		p             = &rec.p
		current, next *int64
		latest        []byte
	)
	if err := row.Scan(&rec.n, &p.ID, &p.Session, &current, &next, &p.Grants.Future, &p.Running, &latest, &p.Restored); err != nil {
		return stored{}, err
	}
	p.Current, p.Next = optionalID(current), optionalID(next)
	if latest != nil {
		if err := json.Unmarshal(latest, &p.Latest); err != nil {
			return stored{}, fmt.Errorf("the latest attempt of %s is not valid JSON: %w", p.ID, err)
		}
	}
	return rec, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Plugin returns the Plugin with id, or runner.ErrNotFound.
func (s *Store) Plugin(ctx context.Context, id string) (runner.Plugin, error) {
	if err := s.usable(); err != nil {
		return runner.Plugin{}, err
	}
	if strings.ContainsRune(id, 0) {
		return runner.Plugin{}, runner.ErrNotFound // no id holds one
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	recs, err := s.readPlugins(ctx, nil, selection{"p.id = ARG", id}, false)
	if err != nil {
		return runner.Plugin{}, s.readError("plugin "+id, timedOut(ctx, err))
	}
	if len(recs) == 0 {
		return runner.Plugin{}, runner.ErrNotFound
	}
	return recs[0].p, nil
}

// Plugins returns the Plugins of session ("" for every session's) in creation order.
func (s *Store) Plugins(ctx context.Context, session string) ([]runner.Plugin, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if strings.ContainsRune(session, 0) {
		return []runner.Plugin{}, nil // no session name holds one
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	sel := everyPlugin
	if session != "" {
		sel = selection{"p.session = ARG", session}
	}
	recs, err := s.readPlugins(ctx, nil, sel, false)
	if err != nil {
		return nil, s.readError("the plugins", timedOut(ctx, err))
	}
	out := make([]runner.Plugin, len(recs))
	for i, rec := range recs {
		out[i] = rec.p
	}
	return out, nil
}

// listingSelect reads Listings from the Plugins' rows alone, without a Package: each
// change keeps a Plugin's listing columns.
const listingSelect = `SELECT p.id, p.session, p.current, p.next, p.latest, p.defined_by <> $1, p.package_count, p.listing_name, p.latest_client
FROM plugins p`

// Listings returns the Listing of each Plugin of session ("" for every session's) in
// creation order, in one statement that reads no Package.
func (s *Store) Listings(ctx context.Context, session string) ([]runner.Listing, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if strings.ContainsRune(session, 0) {
		return []runner.Listing{}, nil // no session name holds one
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	where, args := " ORDER BY p.n", []any{s.token}
	if session != "" {
		where, args = " WHERE p.session = $2 ORDER BY p.n", append(args, session)
	}
	rows, err := s.pool.Query(ctx, listingSelect+where, args...)
	if err != nil {
		return nil, s.readError("the plugins", timedOut(ctx, err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (runner.Listing, error) {
		var l runner.Listing
		var current, next *int64
		var latest []byte
		if err := row.Scan(&l.ID, &l.Session, &current, &next, &latest, &l.Restored, &l.PackageCount, &l.Name, &l.LatestHasClient); err != nil {
			return l, err
		}
		l.Current, l.Next = optionalID(current), optionalID(next)
		if latest != nil {
			if err := json.Unmarshal(latest, &l.Latest); err != nil {
				return l, fmt.Errorf("the latest attempt of %s is not valid JSON: %w", l.ID, err)
			}
		}
		return l, nil
	})
	if err != nil {
		return nil, s.readError("the plugins", timedOut(ctx, err))
	}
	if out == nil {
		out = []runner.Listing{}
	}
	return out, nil
}

// readError explains a failed read.
func (s *Store) readError(what string, err error) error {
	return &Error{Op: "reading " + what + " from", DSN: s.dsn, Err: err, password: s.password()}
}
