package pgstore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// An Error is a read or a write the database did not make. Its text names the DSN
// without its password; Unwrap returns the driver's error.
type Error struct {
	// Op says what the store was doing: "reading the plugins from", "recording a define in".
	Op string
	// DSN is the store's DSN, its password masked.
	DSN string
	Err error
	// Write says Op was a change. A write that failed changed nothing, unless Unknown.
	Write bool
	// Unknown says that the connection was lost after a write reached the server and
	// before the server confirmed it: it may or may not have been recorded.
	Unknown bool

	password string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("pgstore: %s %s: %s", e.Op, e.DSN, scrub(e.Err.Error(), "", e.password))
	switch {
	case e.Unknown:
		msg += "; the connection was lost before the server confirmed the change, so it may or may not have been recorded: read it back before trying again"
	case e.Write:
		msg += "; nothing was changed"
	}
	switch {
	case errors.Is(e.Err, errTimedOut):
		msg += ": check the server's load and the network to it"
	case !isPgError(e.Err) || serverAway(e.Err):
		msg += ". Check that the PostgreSQL server is running and reachable; the store reconnects by itself"
	}
	return msg
}

// serverAway reports whether the server refused err because it is shutting down,
// starting up or recovering, or lost the connection (SQLSTATE classes 57 and 08): a
// server that is away, not a statement it refused.
func serverAway(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "57") || strings.HasPrefix(pe.Code, "08"))
}

func (e *Error) Unwrap() error { return e.Err }

// isPgError reports whether err came from the server (so the statement was refused and
// its transaction rolled back).
func isPgError(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe)
}

// retryable reports whether a write that failed with err may simply be made again: the
// server aborted its transaction for a deadlock or a serialization failure, or the
// request never left this process.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40P01" || pe.Code == "40001"
	}
	return pgconn.SafeToRetry(err)
}
