package sandbox

import (
	"errors"
	"fmt"
	"time"

	"github.com/cordiskit/cordiskit/sandbox/internal/engine"
	"github.com/dop251/goja"
)

// An AllocError reports an entry into JavaScript stopped because it allocated more than
// Limits.MaxEntryAlloc that no garbage collection had freed (see the package doc,
// "Memory"). Like a timeout it unwinds the entry, and the realm keeps serving.
type AllocError struct {
	Mount string // "dyn-3"
	What  string // "a listener", "evaluation of the mount code", …
	Limit int    // Limits.MaxEntryAlloc, in bytes
}

func (e *AllocError) Error() string {
	return fmt.Sprintf("%s: %s allocated more than %s in one call (Limits.MaxEntryAlloc) and was stopped; "+
		"build the data in smaller pieces — a part per call, or a page of the result at a time — and keep less of it in memory between calls",
		e.Mount, e.What, byteSize(e.Limit))
}

// allocErrorOf returns the error of entry e when its allocation budget stopped it, or nil.
func allocErrorOf(e *entry) error {
	if _, cause := e.Expiry(); !errors.Is(cause, engine.ErrAlloc) {
		return nil
	}
	return &AllocError{Mount: e.Mount(), What: e.Bound().What, Limit: int(e.Bound().Alloc)}
}

// overAlloc reports whether err is the interrupt of entry e by its allocation budget: a
// strike, like running into CallTimeout. Lock held.
func (r *Realm) overAlloc(e *entry, err error) bool {
	ie, ok := gojaErr(err).(*goja.InterruptedError) // not errors.As: see timedOut
	if e == nil || !ok || ie.Value() != any(e) {
		return false
	}
	_, cause := e.Expiry()
	return errors.Is(cause, engine.ErrAlloc)
}

// allocStrikeReason says, for a strike report, what runs did of which one or more were
// stopped by their allocation budget (reasons has strikeAlloc): a listener's or timer
// callback's runs, or a tool's calls.
func allocStrikeReason(reasons int, limit time.Duration, tool bool) string {
	switch {
	case reasons == strikeAlloc && tool:
		return "were stopped for allocating more than Limits.MaxEntryAlloc in one call"
	case reasons == strikeAlloc:
		return "allocated more than Limits.MaxEntryAlloc in one call"
	case tool:
		return fmt.Sprintf("ran into their %v bound (CallTimeout) or Limits.MaxEntryAlloc, or used more than half of the time", limit)
	}
	return fmt.Sprintf("ran into CallTimeout (%v) or Limits.MaxEntryAlloc, or used more than half of the time", limit)
}

// byteSize renders n bytes for a message: "256 MiB", "1.5 GiB", "512 KiB", "100 bytes".
func byteSize(n int) string {
	const k = 1 << 10
	for _, u := range []struct {
		size int
		unit string
	}{{k * k * k, "GiB"}, {k * k, "MiB"}, {k, "KiB"}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.unit)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
