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

// pluginSelect reads whole Plugins, each in one row with its Packages and grants as
// arrays: one statement, so one snapshot. $1 is the Store's token (Plugin.Restored).
const pluginSelect = `SELECT p.n, p.id, p.session, p.current, p.next, p.future, p.running, p.latest, p.defined_by <> $1,
	k.ns, k.names, k.purposes, k.hosts, k.clients, g.pkgs
FROM plugins p
CROSS JOIN LATERAL (SELECT array_agg(n ORDER BY n) AS ns, array_agg(name ORDER BY n) AS names,
	array_agg(purpose ORDER BY n) AS purposes, array_agg(host ORDER BY n) AS hosts, array_agg(client ORDER BY n) AS clients
	FROM packages WHERE plugin = p.n) k
CROSS JOIN LATERAL (SELECT array_agg(package ORDER BY seq) AS pkgs FROM grants WHERE plugin = p.n) g`

// scanPlugin reads one row of pluginSelect.
func scanPlugin(row pgx.CollectableRow) (stored, error) {
	var (
		rec             stored
		p               = &rec.p
		current, next   *int64
		latest          []byte
		ns, grants      []int64
		names, purposes []string
		hosts, clients  []*string
	)
	if err := row.Scan(&rec.n, &p.ID, &p.Session, &current, &next, &p.Grants.Future, &p.Running, &latest, &p.Restored,
		&ns, &names, &purposes, &hosts, &clients, &grants); err != nil {
		return stored{}, err
	}
	p.Current, p.Next = optionalID(current), optionalID(next)
	if latest != nil {
		if err := json.Unmarshal(latest, &p.Latest); err != nil {
			return stored{}, fmt.Errorf("the latest attempt of %s is not valid JSON: %w", p.ID, err)
		}
	}
	p.Packages = make([]runner.Package, len(ns))
	for i, n := range ns {
		p.Packages[i] = runner.Package{ID: packageID(n), Name: names[i], Purpose: purposes[i], Host: deref(hosts[i]), Client: deref(clients[i])}
	}
	for _, n := range grants {
		p.Grants.Packages = append(p.Grants.Packages, packageID(n))
	}
	return rec, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// stored is a Plugin with its row key.
type stored struct {
	n int64
	p runner.Plugin
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func (s *Store) readPlugins(ctx context.Context, q querier, where string, args ...any) ([]stored, error) {
	rows, err := q.Query(ctx, pluginSelect+" "+where, append([]any{s.token}, args...)...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanPlugin)
}

// Plugin returns the Plugin with id, or runner.ErrNotFound.
func (s *Store) Plugin(ctx context.Context, id string) (runner.Plugin, error) {
	if err := s.usable(); err != nil {
		return runner.Plugin{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	recs, err := s.readPlugins(ctx, s.pool, "WHERE p.id = $2", id)
	if err != nil {
		return runner.Plugin{}, s.readError("plugin "+id, err)
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
	ctx, cancel := s.bound(ctx)
	defer cancel()
	where, args := "ORDER BY p.n", []any(nil)
	if session != "" {
		where, args = "WHERE p.session = $2 ORDER BY p.n", []any{session}
	}
	recs, err := s.readPlugins(ctx, s.pool, where, args...)
	if err != nil {
		return nil, s.readError("the plugins", err)
	}
	out := make([]runner.Plugin, len(recs))
	for i, rec := range recs {
		out[i] = rec.p
	}
	return out, nil
}

// listingSelect reads Listings without reading a Package's source: what each costs does
// not grow with the Plugin's Packages beyond an index lookup and a count.
const listingSelect = `SELECT p.id, p.session, p.current, p.next, p.latest, p.defined_by <> $1,
	(SELECT count(*) FROM packages k WHERE k.plugin = p.n),
	coalesce((SELECT name FROM packages k WHERE k.n = p.next AND k.plugin = p.n),
		(SELECT name FROM packages k WHERE k.n = p.current AND k.plugin = p.n),
		(SELECT name FROM packages k WHERE k.plugin = p.n ORDER BY k.n DESC LIMIT 1), ''),
	coalesce((SELECT k.client IS NOT NULL FROM packages k WHERE k.n = p.latest_pkg AND k.plugin = p.n), false)
FROM plugins p`

// Listings returns the Listing of each Plugin of session ("" for every session's) in
// creation order, in one statement that reads no Package source.
func (s *Store) Listings(ctx context.Context, session string) ([]runner.Listing, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	where, args := " ORDER BY p.n", []any{s.token}
	if session != "" {
		where, args = " WHERE p.session = $2 ORDER BY p.n", append(args, session)
	}
	rows, err := s.pool.Query(ctx, listingSelect+where, args...)
	if err != nil {
		return nil, s.readError("the plugins", err)
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
		return nil, s.readError("the plugins", err)
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
