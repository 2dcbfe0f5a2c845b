// Package pgstore is the runner.Store on PostgreSQL: the dynamic-plugin runner's
// definitions, grants and id counters in a database that several runtime processes
// share, so that every process sees the Plugins any of them defined, a restarted or
// replaced process finds them, and no id is minted twice whichever process mints it.
//
//	s, err := pgstore.Open(ctx, os.Getenv("CORDIS_STORE_DSN"), nil)
//	defer s.Close()
//	r, err := runner.New(root, &runner.Options{Store: s, RestartAtBoot: true})
//
// It is its own package so that a runtime keeping definitions in memory
// (runner.NewMemoryStore) or in one SQLite file (runner/sqlstore) does not link a
// PostgreSQL driver. The driver is github.com/jackc/pgx/v5 with its pool, pgxpool,
// used directly rather than through database/sql: batches (several statements in one
// round trip, which every call of the store is) and the server's error codes without a
// translation layer.
//
// It needs PostgreSQL 12 or later (its connections ask for plan_cache_mode).
//
// # The DSN
//
// Open takes what libpq takes: a URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=verify-full,
// or keyword/value pairs, "host=/run/postgresql dbname=cordis user=cordis". The
// environment variables libpq reads (PGHOST, PGPASSWORD, PGSSLMODE, …) and a password
// file (~/.pgpass) fill in what the DSN leaves out; pool_max_conns and the other pgxpool
// settings are read from it too. Keep the password out of the command line, which every
// local user can read (ps): put it in PGPASSWORD or a password file. Every message and log
// line the store writes names the DSN with its password masked (Redact); a connection
// that takes longer than 10 seconds fails, unless the DSN's connect_timeout says
// otherwise.
//
// # What it guarantees
//
// The same as every runner.Store (runner/storetest is the suite each passes), across
// processes:
//
//   - Each call is one transaction: a Define with its new Plugin, its Package, both id
//     counters and the pruning it causes; an Update with its grant, revocation and latest
//     attempt. A call that returned nil is committed and seen by every later read of
//     every process; a call that returned an error changed nothing — except when the
//     connection was lost after the change reached the server and before the server
//     answered, which no client of a network database can rule out: then the error is a
//     *pgstore.Error with Unknown set, and says the change may have been recorded.
//   - Writes of one Plugin from several processes are serialized: Update and a Define of
//     a new Package lock the Plugin's row (SELECT … FOR UPDATE) for their transaction.
//     So are the defines of one session: each takes the session's advisory lock before
//     it counts the session's Plugins and Packages, so runner.Options' caps on them hold
//     across processes.
//   - Calls do not end when their caller's context is cancelled, only after
//     Options.Timeout (30 s): a write the server received is seen through rather than
//     abandoned by a client that went away, and a read answers as the other stores' do,
//     so the runner, not the store, says what a cancelled tool call means.
//   - Reads go to the database every time, in one round trip each (a read-only
//     repeatable-read transaction, so one snapshot): a Plugin another process defined,
//     changed or removed reads as it is now. The store keeps nothing in memory but its
//     pool. A list (Listings, what cordis_inspect_self {} shows)
//     reads the Plugins' rows alone, whose listing columns every change keeps, so it
//     costs the same however many Packages each Plugin has.
//   - A define is two statements in one round trip: the session's lock, then one
//     statement that counts, mints, inserts and returns the Plugin's listing. It reads
//     no Package's source, so it costs the same however many Packages the Plugin has.
//   - The store survives the server going away: calls fail with a *pgstore.Error while it
//     is gone (naming the DSN and saying the store reconnects by itself), and succeed
//     again once it is back, with the same Store; nothing needs reopening. A write that
//     never left the process, or that the server aborted for a deadlock or a
//     serialization failure, is made again, up to three times.
//
// Plugin.Restored says that a Plugin was not defined by this Store: by an earlier
// process, or by another process sharing the database.
//
// One difference from the other stores: PostgreSQL's text cannot hold a NUL character
// (U+0000), so a define whose name, purpose, halves, session or prefix holds one is
// refused with an error that says where it is and how to fix it. A latest attempt keeps
// one (it is stored as JSON, escaped).
//
// # Ids
//
// Ids keep the format of the other stores: "<prefix>-N" (one counter for every prefix),
// "pkg-N", "run-N" and "approval-N". The numbers are minted by the database: each is a
// row of the counters table, incremented in the transaction that uses the number, whose
// row lock orders the processes minting at once. So no number is minted twice, a number is
// taken only by a change that committed (a refused or failed define consumes none), and
// counters never go back, so a removed Plugin's ids are never reused. A define holds the
// counters' rows only while its one statement runs.
//
// Open raises, never lowers, a counter that is below the ids the database stores (the
// counters table edited, or restored from an older copy): each counter that is missing or
// below the highest number of its kind stored anywhere — a Plugin's row and id, the
// Packages and every Package a Plugin names (current, next, latest, granted, revoked),
// the run and the approval request of each latest attempt — is set to that number, in the
// transaction that opens the store, and each raise is logged (Options.Logger, at Warn).
//
// # Schema and migrations
//
// The store's tables live in a PostgreSQL schema of their own, "cordis" unless
// Options.Schema says otherwise, created when missing (the DSN's user needs the CREATE
// privilege on the database the first time, and on the schema's tables after). Its
// store_version table holds the schema version. Open migrates an older schema forward,
// one numbered step at a time, in the transaction that opens the store, holding an
// advisory lock so that processes starting at once migrate one at a time. Open refuses,
// naming the DSN and what to do, and never resets: a schema that holds another
// application's tables, and a version newer than this build knows (ErrRefused) — every
// process sharing a store must run a build that knows its schema, so upgrade them all
// before any process opens the store with a newer build; a server it cannot reach, or that
// refuses the DSN's user, password or database (ErrUnreachable); a DSN that does not parse
// (ErrInvalidDSN).
//
// # Several processes: what is shared and what is not yet
//
// What the store holds is shared at once: every process reads the Plugins, Packages,
// grants and latest attempts any process recorded, and ids never collide.
//
// A session's runs belong to one process at a time. The Store implements
// runner.SessionOwner: a lease per session, in the leases table, held by one Store (its
// random token), with an expiry on the server's clock (Options.LeaseTTL, 10 s) and a
// fencing token that each takeover bumps. A Store renews the leases it holds every third
// of LeaseTTL, gives up at that renewal the lease of a session with nothing running or
// starting (so an idle session runs in whichever process its client uses next), and
// gives them all up at Close.
//
//   - An Update that starts a run takes the session's lease in its own transaction when
//     no live Store holds it, and any other Update or Remove of a Plugin whose session's
//     lease another live Store holds is refused with runner.ErrSessionElsewhere (checked
//     in the change's transaction, the lease's row locked until it commits, so no takeover
//     slips between the check and the write). A define is not fenced: Packages are
//     definitions, which every process shares.
//   - A runner booting on the store reconciles (and, with RestartAtBoot, restarts) only
//     the sessions that had something running or starting and whose lease it takes,
//     leaving those of live processes alone.
//   - Every runner looks for orphaned sessions — a Plugin recorded running, no live lease
//     — every twentieth of LeaseTTL (100–500 ms), takes the lease of each and starts what
//     was running as a boot does (host halves directly, client halves as run requests).
//     So when a process dies, its sessions' Plugins run in another process within the
//     lease's expiry and half a second (docs/PERFORMANCE.md measures it).
//   - A Store that cannot renew a lease gives it up two thirds of LeaseTTL after its last
//     renewal that succeeded, before it expires on the server; one that finds its lease
//     taken gives it up at that renewal. Either way its runner stops that session's runs
//     — those it knows it runs, without reading the store, which may be what is away —
//     logs it (at Warn), and leaves the session's record to the new holder.
//   - A session whose lease an Update takes as it starts a run while other Plugins of the
//     session are recorded running (its first cordis_run after the server was away, say)
//     is listed once as an orphan of that Store, so its runner starts those others too.
//     After the server comes back, every Plugin recorded running runs in exactly one
//     process (TestRunnersSurviveServerStop stops the server mid-burst under two runners).
//
// Every change is seen in every process. A define, a removal and each Update (a run
// started or stopped, a grant, a version pointer moved) is announced with PostgreSQL's
// NOTIFY in its own transaction (so only once it commits), and each Store LISTENs on a
// connection of its own ("cordis pgstore listener" in pg_stat_activity), from Open on.
// The Store implements runner.ChangeNotifier: a runner emits DefinitionChanged for
// another process's change — defines and removals as for its own, runs, stops and grants
// as "updated" — within a round trip or two of its commit, so panels read their inventory
// again. The runner believes a notice only as far as its store confirms it: it reads the
// session the notice names and names the notice's Plugin to that session only when the
// store gives the session that Plugin (or, for a removal, holds it no more); anything
// else is a plain reload of the named session, and nothing at all for a session that has
// no Plugins and had none. cordis_inspect_self reads the store every time, so it shows
// every process's changes without a notice.
//
// A listening connection silent for 5 s is pinged, so one that died without a word is
// noticed within 10 s; one the server ended fails at once. The Store connects again
// (after 0.1 s, then twice as long each time, up to 5 s) and, listening again, tells its
// runner that notices may have been missed; the runner then tells every session with
// Plugins in the store, and every session it told anything since its last catch-up (whose
// last Plugin may have gone), to read its inventory again, at most once a second. So a
// change made while no one listened reaches the panels as a reload once the connection is
// back, and nothing is lost for longer than that (TestRelayResyncsAfterListenLost kills
// the connection with pg_terminate_backend). A session handover asked for meanwhile
// (RequestSession) is not heard: the session stays where it runs until its client asks
// again or its holder ends.
//
// What stays in each process: handler tables and pending run requests (a request pending
// in a process that died stays recorded as pending until a process boots on the store, or
// takes the session over because one of its Plugins was running), so
// runner.Options.MaxPendingRequestsPerSession counts a session's requests in each process
// on its own. The caps on Plugins and Packages per session hold across processes: a
// define takes its session's advisory lock in its transaction before it counts what the
// session holds (runner.Definition.Admit). A session whose requests the balancer sends to a process
// other than its lease's holder can define and read there, but while a Plugin of it runs
// in the holder its runs, stops and undefines are refused (runner.ErrSessionElsewhere).
// The runtime moves it by calling runner.Runner.TakeSession when the session's client
// connects to the new process: the holder is asked (a NOTIFY), stops the session's runs,
// hands the lease to the asking Store, and that one's runner starts what was running at
// its next look for orphans. Two clients of one session on two processes would take it
// from each other: route a session to one process (sticky sessions) while it lives.
// PostgreSQL lets every role that can connect to the database send a NOTIFY, and LISTEN,
// whatever its privileges on the store's tables: such a role could announce changes that
// did not happen (the named session's pages read their own inventory again, nothing else:
// TestForgedNoticeOnlyReloads), ask for a session (its runs stop and start again
// elsewhere, or after LeaseTTL), and read every notice as it passes: session names and
// the ids of Plugins and Packages as they change, never what they hold. Give the store a
// database that only its processes' role can connect to.
//
// The fence covers the store's record, not what a host half does outside it: a process
// that stalls past its lease's expiry (a pause longer than a third of LeaseTTL) may run a
// half for a moment after another process started it, until its next renewal finds the
// lease gone. Choose LeaseTTL well above the pauses a process may see.
//
// # Retention
//
// Options.KeepPackages prunes, at each define, the Packages of that Plugin that are
// neither current, next, the latest attempt's, granted, nor among its newest N; what a
// run uses is always one of the first three.
//
// # Tests
//
// The tests start a throwaway PostgreSQL cluster (internal/pgtest): initdb and pg_ctl in a
// temporary directory, on a unix socket there, as an unprivileged user when the tests run
// as root, a fresh database per test.
//
//	go test -race ./runner/pgstore
//
// They need PostgreSQL's server programs: Debian's postgresql package (apt-get install
// postgresql; /usr/lib/postgresql/VERSION/bin), or any installation whose initdb, pg_ctl
// and postgres are on PATH or in $PG_BINDIR. Without them the tests are skipped, and fail
// under CI=true. The benchmarks set each figure beside its floor on the same server:
//
//	go test -run '^$' -bench . -benchtime 2000x ./runner/pgstore
package pgstore
