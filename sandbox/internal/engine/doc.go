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
// interrupts the runtime of every entry past its deadline or its allocation budget (see
// Memory); a context given to [Realm.Begin] interrupts it when it ends. The interrupt is
// the only thing the watchdog does to a realm: it unwinds every JavaScript frame above the
// outermost entry of the runtime, so entries nested in an expired one fail with it, and
// [Realm.End] of the last fired entry clears it. Bounds hold to within a tick (a sixteenth
// of the smallest bound, between 1 ms and 10 ms).
//
// # Excuses
//
// While a chain is out in [Lock.Unlocked], another goroutine's chain may run (typically an
// event the Go call emitted, delivered inline to a listener of another mount). That time is
// not the suspended chain's: when an outermost entry ends, the time it ran is excused from
// the suspended chains' entries of other realms (their clocks and deadlines move), up to
// each entry's own limit in all — so every entry ends within twice its limit of wall time
// (plus a tick), whatever other mounts do.
//
// # Memory
//
// goja has no heap of its own to cap: a realm's objects are Go objects on the process's
// heap. An entry with an allocation budget ([Bound].Alloc) is stopped like an expired one
// — interrupted, with [ErrAlloc] as the cause [Entry.Expiry] reports — once it is charged
// more than its budget. While such an entry is linked the watchdog reads four counters of
// runtime/metrics each tick (bytes allocated, the live heap the last collection found,
// collections completed, the heap in use: under a microsecond, no stop of the world);
// nothing is read on the entry path, and a lock with no budget in force reads nothing.
// Every lock's watchdog reads them for itself: with many locks running JavaScript at once
// (an engine per session), one read per busy lock per tick.
//
// What an entry is charged: from the first sample taken after it began (so never for what
// was allocated before), every byte allocated that no collection has shown to be garbage —
// with no collection since, all of it; after one, the growth of the live heap it found plus
// what was allocated after it (at most all of it; "after it" is bounded both by the count
// since the sample before the collection was seen to end and by the heap in use over the
// live heap). So an entry that keeps what it makes is charged all of it, and one that
// makes garbage (a string grown with += is copied each time: 2 GB for a 200 KB string
// built from 20,000 lines, measured) is charged only about the garbage since the last
// collection and what that collection could not yet tell from live (Go counts what is
// allocated while it marks as live: at GB/s of garbage that is megabytes). The bound holds to within two ticks of allocation (what the entry made
// before its first sample and after its last one below the budget); goja allocates up to
// about 1.5 GB/s building strings and objects, so with a 10 ms tick about 15 MB each.
//
// The counters are the whole process's, not the entry's: Go has no per-goroutine
// allocation count. The lock holder is the only goroutine running JavaScript of the
// lock's realms, so of this lock's JavaScript an entry is charged only its own chain and
// what runs while it is out in [Lock.Unlocked] — the latter excused, as time is, when that
// entry ends (up to the budget once: an entry answers for at most twice its budget of
// other realms' JavaScript; while the other entry still runs, its allocation counts
// against both). But it is also charged what every other goroutine allocates meanwhile:
// Go code it calls (bindings, the kit), async Go calls, other locks' JavaScript running in
// parallel, the host's own work. That is still a useful bound: it is what keeps the
// process from running out of memory whoever allocates, most entries end within
// milliseconds (so only a long-running entry is exposed to others' allocation), and a
// budget of hundreds of MiB is far above what the rest of a process allocates in that
// time unless it, too, is building something huge. What it does not catch: a native call
// that allocates at once (an interrupt waits for the next JavaScript instruction:
// 'x'.repeat(2 ** 28) allocates 256 MiB in one step), memory kept across many entries (a
// slow leak: each entry is judged alone), memory freed by others that masks growth (the
// live heap is the process's), and garbage a collection has not yet seen (in a process
// whose live heap is near the budget or larger, collections are that far apart; garbage
// made at GB/s outruns them).
package engine
