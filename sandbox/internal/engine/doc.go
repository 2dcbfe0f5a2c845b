// Package engine is the concurrency engine of package sandbox: the lock a session's realms
// share, the entries that time each call into JavaScript, the watchdog that interrupts an
// entry past its bound, and the goroutines of async Go calls. A sandbox runs one engine
// per session (see "Engines per session"). It knows goja only as a runtime to interrupt;
// what a realm is for (globals, conversions, errors a model reads) stays in package
// sandbox.
//
// # The lock
//
// A [Lock] serializes the JavaScript of its realms: at most one goroutine runs JavaScript
// of any of them at a time, but any goroutine may take the lock and enter. There is no
// owner goroutine to hand work to — an owner would cost a goroutine hop per JS → Go call
// (see docs/PERFORMANCE.md) — so the lock is a plain mutex plus the bookkeeping below.
//
// Invariants:
//
//   - Every field of a [Realm] and every entry is read and written with the lock held,
//     except the watchdog's fields of an entry (its list links, clock and fired state),
//     which are guarded by the watchdog's own mutex; the watchdog never takes the lock.
//   - JavaScript runs only with the lock held. [Lock.Unlocked] is the one way a native
//     function calls Go without it: Go code called there may enter any realm, even the
//     calling one, on the same goroutine or another, without deadlock. ([Lock.Suspend]
//     and [Lock.Resume] are its two halves, for the generated bindings' synchronous
//     methods, which retake the lock in the recover they defer anyway.)
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
// One goroutine per lock (so one per session with JavaScript running), started when an entry begins and none runs, stopped once no
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
// (plus a tick), whatever other mounts do. Excuses are per lock: JavaScript of another
// engine that a Go call runs inline (an event to a listener of the runtime's own, a call
// into another session's shared service) counts against the caller as the Go call's own
// time does — it is bounded by its own entry's limit, and it does not stop the caller's
// engine meanwhile.
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
//
// # Engines per session
//
// Package sandbox makes one engine — a Lock, its watchdog, its realms — per session
// (kit.Plugin.Session), and one for the runtime's own realms, so one session's JavaScript
// never waits for another's lock and sessions run in parallel on separate cores. Like an
// event loop of goja_nodejs, each engine has one owner and one way in:
//
//   - One owner. Whoever holds a Lock owns every runtime of its realms: it alone may run
//     their JavaScript, read or write their objects and their [Realm] fields. A realm
//     belongs to one engine for its whole life. Values never cross engines as runtime
//     objects: the sandbox's membrane carries a copy, or a handle that is called back
//     through the owning engine.
//   - One way in. JavaScript runs only inside an entry: [Lock.Lock], then [Realm.Begin]
//     and [Realm.End]. From JavaScript the one way out is [Lock.Unlocked] (or its
//     two halves), around every Go call; the one call from another goroutine into a running runtime is the watchdog's
//     Interrupt.
//   - One lock at a time. A goroutine never takes an engine's lock while it holds
//     another's: a call into a realm of another engine — a listener, a seam, a service
//     another session shares — is made the way a Go call is, out of Unlocked. So no two
//     engines wait for each other's locks, whichever calls the other first.
//   - Made on first use, retired with the last realm. The owner (the sandbox) makes a
//     session's engine with its first realm ([Lock.InitOwned]), and retires it when the
//     last one closes ([Lock.Retire]: closed to new entries and calls, its watchdog
//     stopped, the contexts of its async calls cancelled); the session's next realm gets
//     a fresh engine. The runtime's own engine, whose realms come and go with the
//     runtime's own calls, stays until the owner closes. The goroutines of every engine, retired ones too, are counted in the
//     owner's WaitGroup, which the owner waits for when it closes ([WaitAll]).
package engine
