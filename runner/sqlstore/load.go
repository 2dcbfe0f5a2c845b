package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// load reads every definition into memory: one query per table, in key order.
func (s *Store) load(ctx context.Context) error {
	if err := s.loadCounters(ctx); err != nil {
		return err
	}
	byN, err := s.loadPlugins(ctx)
	if err != nil {
		return err
	}
	if err := s.loadPackages(ctx, byN); err != nil {
		return err
	}
	if err := s.loadGrants(ctx, byN); err != nil {
		return err
	}
	for _, rec := range s.order {
		rec.listing = rec.p.Listing()
	}
	return nil
}

func (s *Store) loadCounters(ctx context.Context) error {
	rows, err := s.conn.QueryContext(ctx, "SELECT name, value FROM counters")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return err
		}
		s.counters[name] = v
	}
	return rows.Err()
}

func (s *Store) loadPlugins(ctx context.Context) (map[int64]*record, error) {
	rows, err := s.conn.QueryContext(ctx, "SELECT n, id, session, current, next, future, running, latest FROM plugins ORDER BY n")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byN := map[int64]*record{}
	for rows.Next() {
		rec := &record{}
		p := &rec.p
		var latest sql.NullString
		if err := rows.Scan(&rec.n, &p.ID, &p.Session, &p.Current, &p.Next, &p.Grants.Future, &p.Running, &latest); err != nil {
			return nil, err
		}
		if latest.Valid {
			p.Latest = new(dynamic.Attempt)
			if err := json.Unmarshal([]byte(latest.String), p.Latest); err != nil {
				return nil, fmt.Errorf("the latest attempt of %s is not valid JSON: %w", p.ID, err)
			}
		}
		p.Restored = true
		s.add(rec)
		byN[rec.n] = rec
	}
	return byN, rows.Err()
}

func (s *Store) loadPackages(ctx context.Context, byN map[int64]*record) error {
	rows, err := s.conn.QueryContext(ctx, "SELECT n, plugin, name, purpose, host, client FROM packages ORDER BY n")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n, plugin int64
		var k runner.Package
		var host, client sql.NullString
		if err := rows.Scan(&n, &plugin, &k.Name, &k.Purpose, &host, &client); err != nil {
			return err
		}
		rec := byN[plugin]
		if rec == nil {
			return fmt.Errorf("package pkg-%d names plugin row %d, which does not exist", n, plugin)
		}
		k.ID, k.Host, k.Client = packageID(n), host.String, client.String
		rec.p.Packages = append(rec.p.Packages, k)
	}
	return rows.Err()
}

func (s *Store) loadGrants(ctx context.Context, byN map[int64]*record) error {
	rows, err := s.conn.QueryContext(ctx, "SELECT plugin, package FROM grants ORDER BY seq")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var plugin, pkg int64
		if err := rows.Scan(&plugin, &pkg); err != nil {
			return err
		}
		if rec := byN[plugin]; rec != nil {
			rec.p.Grants.Packages = append(rec.p.Grants.Packages, packageID(pkg))
		}
	}
	return rows.Err()
}
