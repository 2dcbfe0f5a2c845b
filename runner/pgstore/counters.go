package pgstore

import (
	"context"
	"log/slog"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/jackc/pgx/v5"
)

// counterNames are the rows of the counters table, each the last number minted of its
// kind: <prefix>-N for Plugins (one counter for every prefix), pkg-N, run-N, approval-N.
var counterNames = []string{"plugin", "package", string(runner.CounterRun), string(runner.CounterApproval)}

// storedHighs is the highest number of each kind of id the store holds, in a row key or
// in a reference (in counterNames' order): a Plugin's row and id; a Package's row, a
// Plugin's current, next and latest Package, its grants and its revocations; the run and
// the approval request of a latest attempt. An id that is not the store's (or whose
// number would not fit) counts as none.
const storedHighs = `SELECT
	greatest((SELECT max(n) FROM plugins), (SELECT max(substring(id FROM '-(\d{1,18})$')::bigint) FROM plugins), 0),
	greatest((SELECT max(n) FROM packages), (SELECT max(greatest(current, next, latest_pkg)) FROM plugins),
		(SELECT max(package) FROM grants), (SELECT max(substring(package FROM '^pkg-(\d{1,18})$')::bigint) FROM revocations),
		(SELECT max(substring(latest->>'packageId' FROM '^pkg-(\d{1,18})$')::bigint) FROM plugins), 0),
	greatest((SELECT max(substring(latest->>'pluginRunId' FROM '^run-(\d{1,18})$')::bigint) FROM plugins), 0),
	greatest((SELECT max(substring(latest->>'approvalRequestId' FROM '^approval-(\d{1,18})$')::bigint) FROM plugins), 0)`

// A raise is one counter Open raised: from was (absent when missing) to now.
type raise struct {
	name    string
	was     int64
	missing bool
	now     int64
}

// raiseCounters raises each counter that is missing or below the highest id of its kind
// the store holds, so that no stored id is minted again; a counter is never lowered. It
// runs in the opening transaction, with the counters' rows locked.
func (s *Store) raiseCounters(ctx context.Context, tx pgx.Tx) ([]raise, error) {
	rows, err := tx.Query(ctx, "SELECT name, value FROM counters FOR UPDATE")
	if err != nil {
		return nil, s.dbError("reading the id counters of", err)
	}
	have := map[string]int64{}
	var name string
	var value int64
	if _, err := pgx.ForEachRow(rows, []any{&name, &value}, func() error { have[name] = value; return nil }); err != nil {
		return nil, s.dbError("reading the id counters of", err)
	}
	highs := make([]int64, len(counterNames))
	if err := tx.QueryRow(ctx, storedHighs).Scan(&highs[0], &highs[1], &highs[2], &highs[3]); err != nil {
		return nil, s.dbError("reading the stored ids of", err)
	}
	var out []raise
	for i, name := range counterNames {
		was, ok := have[name]
		if ok && was >= highs[i] {
			continue
		}
		if _, err := tx.Exec(ctx, "INSERT INTO counters (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value", name, highs[i]); err != nil {
			return nil, s.dbError("raising the id counters of", err)
		}
		out = append(out, raise{name: name, was: was, missing: !ok, now: highs[i]})
	}
	return out, nil
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
		logger.Warn("pgstore: raised an id counter that was below the ids stored in the database (the counters table was edited, or restored from an older copy), so that no id is minted twice",
			slog.String("dsn", s.dsn), slog.String("schema", s.schema), slog.String("counter", r.name), was, slog.Int64("now", r.now))
	}
}
