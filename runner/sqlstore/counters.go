package sqlstore

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"github.com/cordiskit/cordiskit/runner"
)

// counterNames are the rows of the counters table, each the last number minted of its
// kind: <prefix>-N for Plugins (one counter for every prefix), pkg-N, run-N, approval-N.
var counterNames = []string{"plugin", "package", string(runner.CounterRun), string(runner.CounterApproval)}

// A raise is one counter Open raised: from was (absent when missing) to now.
type raise struct {
	name    string
	was     int64
	missing bool
	now     int64
}

// raiseCounters raises each counter that is missing, negative, or below the highest id
// of its kind the file stores, so that no stored id is minted again; a counter is never
// lowered. It writes in the opening transaction, after load.
func (s *Store) raiseCounters(ctx context.Context) ([]raise, error) {
	highs, err := s.storedHighs(ctx)
	if err != nil {
		return nil, err
	}
	var out []raise
	for _, name := range counterNames {
		was, ok := s.counters[name]
		now := max(highs[name], 0)
		if ok && was >= now {
			continue
		}
		if _, err := s.conn.ExecContext(ctx, "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value", name, now); err != nil {
			return nil, err
		}
		s.counters[name] = now
		out = append(out, raise{name: name, was: was, missing: !ok, now: now})
	}
	return out, nil
}

// storedHighs returns the highest number of each kind of id the loaded file holds, in a
// row key or in a reference: a Plugin's row and id; a Package's row, a Plugin's current,
// next and latest Package, its grants and its revocations; the run and the approval
// request of a latest attempt.
func (s *Store) storedHighs(ctx context.Context) (map[string]int64, error) {
	h := map[string]int64{}
	note := func(name string, n int64) { h[name] = max(h[name], n) }
	pkg := func(id string) { note("package", idNumber(id, "pkg-")) }
	for _, rec := range s.order {
		p := &rec.p
		note("plugin", rec.n)
		if i := strings.LastIndexByte(p.ID, '-'); i >= 0 {
			note("plugin", idNumber(p.ID[i+1:], ""))
		}
		for _, k := range p.Packages {
			pkg(k.ID)
		}
		pkg(p.Current)
		pkg(p.Next)
		for _, id := range p.Grants.Packages {
			pkg(id)
		}
		if p.Latest != nil {
			pkg(p.Latest.PackageID)
			note(string(runner.CounterRun), idNumber(p.Latest.PluginRunID, string(runner.CounterRun)+"-"))
			note(string(runner.CounterApproval), idNumber(p.Latest.ApprovalRequestID, string(runner.CounterApproval)+"-"))
		}
	}
	rows, err := s.conn.QueryContext(ctx, "SELECT package FROM revocations")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		pkg(id)
	}
	return h, rows.Err()
}

// idNumber is the N of an id prefix+N, or 0 when id is not one.
func idNumber(id, prefix string) int64 {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// logRaised reports the counters Open raised, once the raise is committed.
func (s *Store) logRaised(raised []raise) {
	logger := s.opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	for _, r := range raised {
		was := slog.Int64("was", r.was)
		if r.missing {
			was = slog.String("was", "missing")
		}
		logger.Warn("sqlstore: raised an id counter that was below the ids stored in the file (the counters table was edited, or restored from an older copy), so that no id is minted twice",
			slog.String("path", s.path), slog.String("counter", r.name), was, slog.Int64("now", r.now))
	}
}
