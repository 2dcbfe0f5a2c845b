package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordiskit/cordiskit/runner"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

func packageID(n int64) string { return "pkg-" + strconv.FormatInt(n, 10) }

// packageN is the row key of a Package id this store minted.
func packageN(id string) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(id, "pkg-"), 10, 64)
	return n
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// Define records one Package (and, with d.Prefix, its new Plugin) in one transaction,
// pruning that Plugin's old Packages when Options.KeepPackages says so. The caps are
// counted in memory under s.mu, which every change holds: the file is this process's
// alone (Open locks it).
func (s *Store) Define(ctx context.Context, d runner.Definition) (runner.Listing, runner.Package, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return runner.Listing{}, runner.Package{}, err
	}
	isNew := d.Prefix != ""
	var rec record
	if isNew {
		rec.n = s.counters["plugin"] + 1
		rec.p = runner.Plugin{ID: fmt.Sprintf("%s-%d", d.Prefix, rec.n), Session: d.Session}
	} else if old := s.plugins[d.PluginID]; old == nil || old.p.Session != d.Session {
		return runner.Listing{}, runner.Package{}, runner.ErrNotFound
	} else {
		rec = record{n: old.n, p: old.p.Clone()}
	}
	if err := d.Admit(s.holds(d.Session)); err != nil {
		return runner.Listing{}, runner.Package{}, err
	}
	kn := s.counters["package"] + 1
	k := runner.Package{ID: packageID(kn), Name: d.Name, Purpose: d.Purpose, Host: d.Host, Client: d.Client}
	rec.p.Packages = append(rec.p.Packages, k)
	pruned := prunable(rec.p, s.opts.KeepPackages)
	at := now()
	err := s.write(ctx, "a define", func(tx *sql.Tx) error {
		if isNew {
			if _, err := tx.Exec("INSERT INTO plugins (n, id, session, prefix, created) VALUES (?, ?, ?, ?, ?)", rec.n, rec.p.ID, d.Session, d.Prefix, at); err != nil {
				return err
			}
			if _, err := tx.Exec("UPDATE counters SET value = ? WHERE name = 'plugin'", rec.n); err != nil {
				return err
			}
		}
		if _, err := tx.Exec("INSERT INTO packages (n, plugin, name, purpose, host, client, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
			kn, rec.n, k.Name, k.Purpose, nullable(k.Host), nullable(k.Client), at); err != nil {
			return err
		}
		if _, err := tx.Exec("UPDATE counters SET value = ? WHERE name = 'package'", kn); err != nil {
			return err
		}
		for _, id := range pruned {
			if _, err := tx.Exec("DELETE FROM packages WHERE n = ?", packageN(id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return runner.Listing{}, runner.Package{}, err
	}
	// Committed: now the copy in memory changes.
	rec.p.Packages = slices.DeleteFunc(rec.p.Packages, func(x runner.Package) bool { return slices.Contains(pruned, x.ID) })
	rec.listing = rec.p.Listing()
	if isNew {
		s.counters["plugin"] = rec.n
		s.add(&rec)
	} else {
		*s.plugins[rec.p.ID] = rec
	}
	s.counters["package"] = kn
	return rec.listing.Clone(), k, nil
}

// holds counts session's Plugins and Packages. s.mu held.
func (s *Store) holds(session string) (plugins, packages int) {
	for _, rec := range s.sessions[session] {
		packages += len(rec.p.Packages)
	}
	return len(s.sessions[session]), packages
}

// add adds a new record to the lists. s.mu held.
func (s *Store) add(rec *record) {
	s.plugins[rec.p.ID] = rec
	s.order = append(s.order, rec)
	s.sessions[rec.p.Session] = append(s.sessions[rec.p.Session], rec)
}

// list is the records of session ("" for every session's) in creation order. s.mu held.
func (s *Store) list(session string) []*record {
	if session == "" {
		return s.order
	}
	return s.sessions[session]
}

func nullable(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// Plugin returns the Plugin with id, or runner.ErrNotFound.
func (s *Store) Plugin(_ context.Context, id string) (runner.Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return runner.Plugin{}, err
	}
	rec := s.plugins[id]
	if rec == nil {
		return runner.Plugin{}, runner.ErrNotFound
	}
	return rec.p.Clone(), nil
}

// Plugins returns the Plugins of session ("" for every session's) in creation order.
func (s *Store) Plugins(_ context.Context, session string) ([]runner.Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return nil, err
	}
	recs := s.list(session)
	out := make([]runner.Plugin, 0, len(recs))
	for _, rec := range recs {
		out = append(out, rec.p.Clone())
	}
	return out, nil
}

// Listings returns the Listing of each Plugin of session ("" for every session's) in
// creation order, read from memory without copying a Package.
func (s *Store) Listings(_ context.Context, session string) ([]runner.Listing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return nil, err
	}
	recs := s.list(session)
	out := make([]runner.Listing, 0, len(recs))
	for _, rec := range recs {
		out = append(out, rec.listing.Clone())
	}
	return out, nil
}

// Update applies c to Plugin id in one transaction.
func (s *Store) Update(ctx context.Context, id string, c runner.Change) (runner.Plugin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return runner.Plugin{}, err
	}
	old := s.plugins[id]
	if old == nil {
		return runner.Plugin{}, runner.ErrNotFound
	}
	p := old.p.Clone()
	if err := p.Apply(c); err != nil {
		return runner.Plugin{}, err
	}
	var latest sql.NullString
	if p.Latest != nil {
		b, err := json.Marshal(p.Latest)
		if err != nil {
			return runner.Plugin{}, fmt.Errorf("sqlstore: encoding the latest attempt of %s: %w", id, err)
		}
		latest = sql.NullString{String: string(b), Valid: true}
	}
	at := now()
	err := s.write(ctx, "an update of "+id, func(tx *sql.Tx) error {
		if _, err := tx.Exec("UPDATE plugins SET current = ?, next = ?, future = ?, running = ?, latest = ? WHERE n = ?",
			p.Current, p.Next, p.Grants.Future, p.Running, latest, old.n); err != nil {
			return err
		}
		if c.Grant != "" {
			if _, err := tx.Exec("INSERT OR IGNORE INTO grants (plugin, package, granted) VALUES (?, ?, ?)", old.n, packageN(c.Grant), at); err != nil {
				return err
			}
		}
		var revoked []string
		if c.Revoke != "" && slices.Contains(old.p.Grants.Packages, c.Revoke) {
			if _, err := tx.Exec("DELETE FROM grants WHERE plugin = ? AND package = ?", old.n, packageN(c.Revoke)); err != nil {
				return err
			}
			revoked = append(revoked, c.Revoke)
		}
		if old.p.Grants.Future && !p.Grants.Future {
			revoked = append(revoked, "")
		}
		for _, r := range revoked {
			if _, err := tx.Exec("INSERT INTO revocations (plugin, package, revoked) VALUES (?, ?, ?)", old.n, r, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return runner.Plugin{}, err
	}
	old.p, old.listing = p, p.Listing()
	return p.Clone(), nil
}

// Remove deletes Plugin id with its Packages, grants and revocations.
func (s *Store) Remove(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	rec := s.plugins[id]
	if rec == nil {
		return runner.ErrNotFound
	}
	if err := s.write(ctx, "the removal of "+id, func(tx *sql.Tx) error {
		_, err := tx.Exec("DELETE FROM plugins WHERE n = ?", rec.n)
		return err
	}); err != nil {
		return err
	}
	delete(s.plugins, id)
	s.order = slices.DeleteFunc(s.order, func(x *record) bool { return x == rec })
	if own := slices.DeleteFunc(s.sessions[rec.p.Session], func(x *record) bool { return x == rec }); len(own) > 0 {
		s.sessions[rec.p.Session] = own
	} else {
		delete(s.sessions, rec.p.Session)
	}
	return nil
}

// Mint returns the next id of counter k, persisted before it is returned.
func (s *Store) Mint(ctx context.Context, k runner.Counter) (string, error) {
	if k != runner.CounterRun && k != runner.CounterApproval {
		return "", fmt.Errorf("sqlstore: unknown counter %q (the counters are %q and %q)", k, runner.CounterRun, runner.CounterApproval)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return "", err
	}
	v := s.counters[string(k)] + 1
	if err := s.write(ctx, "a new "+string(k)+" id", func(tx *sql.Tx) error {
		_, err := tx.Exec("UPDATE counters SET value = ? WHERE name = ?", v, string(k))
		return err
	}); err != nil {
		return "", err
	}
	s.counters[string(k)] = v
	return fmt.Sprintf("%s-%d", k, v), nil
}

// usable refuses calls on a closed Store. s.mu held.
func (s *Store) usable() error {
	if s.closed {
		return fmt.Errorf("%w: %s was closed; the runner must not outlive its Store", ErrClosed, s.path)
	}
	return nil
}

// write runs fn in one transaction. It does not take ctx's cancellation: a write that
// committed is never reported as failed, and writes are short. s.mu held.
func (s *Store) write(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	tx, err := s.conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return s.writeError(what, err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return s.writeError(what, err)
	}
	if err := tx.Commit(); err != nil {
		return s.writeError(what, err)
	}
	return nil
}

// WriteError reports a write the store could not make; nothing was changed.
type WriteError struct {
	Path, What string
	Err        error
}

func (e *WriteError) Error() string {
	msg := fmt.Sprintf("sqlstore: could not record %s in %s: %v; nothing was changed", e.What, e.Path, e.Err)
	var se *sqlite.Error
	if errors.As(e.Err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_FULL:
			msg += ". The disk (or the file's size limit) is full: free space, then try the call again"
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
			msg += ". The file or its directory is not writable: fix its permissions, then try the call again"
		case sqlite3.SQLITE_IOERR:
			msg += ". The disk reported an I/O error: check it, then try the call again"
		}
	}
	return msg
}

func (e *WriteError) Unwrap() error { return e.Err }

func (s *Store) writeError(what string, err error) error {
	return &WriteError{Path: s.path, What: what, Err: err}
}
