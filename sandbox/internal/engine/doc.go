// Package engine is the concurrency engine of package sandbox: the one lock every realm of
// a sandbox shares, the entries that time each call into JavaScript, the watchdog that
// interrupts an entry past its bound, and the goroutines of async Go calls. It knows goja
// only as a runtime to interrupt; what a realm is for (globals, conversions, errors a
// model reads) stays in package sandbox.
//
// # The lock
//
// A [Lock] serializes JavaScript: at most one goroutine runs JavaScript of any realm of the
// sandbox at a time, but any goroutine may take the lock and enter. There is no owner
// goroutine to hand work to — an owner would cost a goroutine hop per JS → Go call (see
// docs/PERFORMANCE.md) — so the lock is a plain mutex plus the bookkeeping below.
//
// Invariants:
//
//   - Every field of a [Realm] and every entry is read and written with the lock held,
//     except the watchdog's fields of an entry (its list links, clock and fired state),
//     which are guarded by the watchdog's own mutex; the watchdog never takes the lock.
//   - JavaScript runs only with the lock held. [Lock.Unlocked] is the one way a native
//     function calls Go without it: Go code called there may enter any realm, even the
//     calling one, on the same goroutine or another, without deadlock.
//   - Calls into one realm nest strictly, whichever goroutines make them: when
//     [Lock.Unlocked] returns, it waits until every entry that began while its goroutine
//     was out, in a realm its chain has frames in, has ended.
//
// # Entries
//
// An [Entry] is one call into a realm, begun by [Realm.Begin] and ended by [Realm.End],
// both with the lock held. Entries of one goroutine form a chain (each knows the entry it
// nests in); the lock holder's innermost entry is [Lock.Current], nil whenever the lock is
// free. [Realm.Depth] counts the entries of a realm in progress, including ones whose
// goroutine is out in [Lock.Unlocked].
//
// # The watchdog
//
// One goroutine per lock, started when an entry begins and none runs, stopped once no
// entry has been active for two ticks (an idle sandbox has no goroutine). Each tick it
// interrupts the runtime of every entry past its deadline; a context given to
// [Realm.Begin] interrupts it when it ends. The interrupt is the only thing the watchdog
// does to a realm: it unwinds every JavaScript frame above the outermost entry of the
// runtime, so entries nested in an expired one fail with it, and [Realm.End] of the last
// fired entry clears it. Bounds hold to within a tick (a sixteenth of the smallest bound,
// between 1 ms and 100 ms).
//
// # Excuses
//
// While a chain is out in [Lock.Unlocked], another goroutine's chain may run (typically an
// event the Go call emitted, delivered inline to a listener of another mount). That time is
// not the suspended chain's: when an outermost entry ends, the time it ran is excused from
// the suspended chains' entries of other realms (their clocks and deadlines move), up to
// each entry's own limit in all — so every entry ends within twice its limit of wall time
// (plus a tick), whatever other mounts do.
package engine
