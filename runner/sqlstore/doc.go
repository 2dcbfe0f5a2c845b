// Package sqlstore is the durable runner.Store: the dynamic-plugin runner's definitions,
// grants and id counters in one embedded SQLite file, so a restarted runtime keeps every
// Plugin a model defined and every grant a person gave, and never mints an id twice.
//
//	s, err := sqlstore.Open(ctx, filepath.Join(dir, ".cordis", "definitions.db"), nil)
//	defer s.Close()
//	r, err := runner.New(root, &runner.Options{Store: s, RestartAtBoot: true})
//
// It is its own package so that a runtime keeping definitions in memory
// (runner.NewMemoryStore, the default) does not link a database. The driver is
// modernc.org/sqlite, SQLite translated to Go: no cgo, so go install and cross-compiling
// keep working.
//
// # What is stored
//
// Plugins (owner session, prefix, created), their immutable Packages (name, purpose, host
// and client source, created), the version pointers, grants per Package and for future
// versions, a log of revocations, the latest attempt of each Plugin with its diagnostic,
// whether it was running (runner.Plugin.Running), and the four id counters. Live runs,
// handler tables and pending requests are not stored: they end with the process, and the
// runner tells their sessions at the next boot.
//
// Open reads everything into memory; reads are served from there, and each write is one
// SQLite transaction that must commit before the in-memory copy changes, so a write that
// fails (a full disk, an I/O error) changes nothing and returns the reason.
//
// # The file
//
// The file is in WAL mode with foreign keys on and synchronous=FULL: a call that returned
// has reached the disk. Its SQLite application_id marks it as a definition store and its
// user_version is the schema version; Open migrates an older schema forward, one numbered
// step at a time, in the transaction that opens it. Open refuses, naming the file and what
// to do, and never resets: a file that is not a SQLite database or is corrupt, a database
// of another application, and a schema newer than this build knows (ErrRefused); a file,
// or a directory, this process cannot write (ErrNotWritable), since every change must be
// written and WAL keeps its log beside the file.
//
// The path must be a regular file, or not exist yet, and so must SQLite's side files
// beside it (path-wal, path-shm, path-journal; for a symlinked path, beside its target
// too, where SQLite keeps them). Open looks with lstat and stat before it opens anything,
// and refuses a FIFO, a socket, a device, a directory, or a symlink to one (ErrRefused,
// naming the path, what it is and the fix): SQLite would block forever on a FIFO, and take
// the others for a broken database. Its own probes of the file open it non-blocking and
// check what they opened. A thing swapped in at the path between these checks and
// SQLite's own open is not caught: whoever can do that owns the directory.
//
// Open raises, never lowers, an id counter that is below the ids the file stores: the
// counters table edited, or restored from an older copy, would otherwise make every
// define fail on a duplicate key, or mint again an id a session still holds. In the
// transaction that opens the file, each counter that is missing, negative, or below the
// highest number of its kind stored anywhere in the file is set to that number (0 when
// there is none): a Plugin's row and the number of its id (one counter for every
// prefix), the Packages and every Package a Plugin names (current, next, latest,
// granted, revoked), and the run and the approval request of each latest attempt. Each
// raise is logged once it is committed (Options.Logger, at Warn, with the counter, the
// old value and the new); a second Open finds nothing to raise. Raising loses nothing:
// ids stay unique and every stored definition keeps its id. What the check cannot see:
// the ids of Plugins removed since, whose rows are gone, and of runs and approval
// requests no latest attempt names any more.
//
// One process at a time: the file is opened in SQLite's exclusive locking mode, and a
// second Open of it (another process, or the same one) is refused with ErrLocked until the
// first Store is closed.
//
// # Sessions
//
// A Plugin belongs to the session name that defined it, for good: a runtime that wants a
// client to find its Plugins after a restart must give that client the same session name
// every time (kit.WithSession). A name derived from a connection (a random MCP session id)
// makes every restart a new session, whose Plugins of the last run read as absent.
//
// What a runtime must keep stable across restarts, for a session to find and run what it
// defined:
//
//   - the session name of each client: derive it from something the client keeps (its
//     configured name, a user id), never from the connection; two clients given one name
//     share their Plugins;
//   - the file: the same path, opened by one process at a time;
//   - the façade and the services stored host halves inject: a Package is source, run
//     again against the façade of the new build, so a service it injects that is gone
//     leaves the run waiting (waitingFor says for what), and a changed one can fail it,
//     with the diagnostic in latestRun;
//   - the runner's Options that decide approval (ApproveHostHalves): grants are kept and
//     honoured, but a run with a client half restarted at boot is a run request again,
//     started by the next page of the panel (approved again only when no grant covers it).
//
// Ids need nothing from the runtime: the counters are in the file and never go back (a
// file edited behind the runtime's back is repaired at Open; see "The file").
//
// # Retention
//
// Options.KeepPackages prunes, at each define, the Packages of that Plugin that are
// neither current, next, the latest attempt's, granted, nor among its newest N; what a
// run uses is always one of the first three.
package sqlstore
