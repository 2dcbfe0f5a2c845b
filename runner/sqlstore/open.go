package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/cordiskit/cordiskit/runner"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Options configures a Store. A nil *Options means defaults.
type Options struct {
	// KeepPackages, when positive, prunes at each define the Packages of that Plugin that
	// are neither current, next, the latest attempt's, granted, nor among its newest
	// KeepPackages. Zero (the default) keeps every Package.
	KeepPackages int

	// Logger receives the counters Open raised (see "The file" in the package doc). Nil
	// means slog.Default().
	Logger *slog.Logger
}

// ErrLocked reports a definition store file that another open Store holds (in this
// process or another).
var ErrLocked = errors.New("sqlstore: the definition store is in use")

// ErrRefused reports a file Open will not use: not a regular file (a FIFO, socket, device
// or directory at the path or at one of SQLite's side files), not a SQLite database,
// corrupt, another application's, or a newer schema. The file is left as it was.
var ErrRefused = errors.New("sqlstore: the file is not a usable definition store")

// ErrNotWritable reports a file, or its directory, that this process cannot write. Every
// change is written before it is kept, so Open refuses such a file rather than serve
// definitions that every define would then fail to record. The file is left as it was.
var ErrNotWritable = errors.New("sqlstore: the definition store is not writable")

// ErrClosed reports a call on a closed Store.
var ErrClosed = errors.New("sqlstore: the definition store is closed")

// A Store is a runner.Store kept in one SQLite file. Close it when the runner is done.
type Store struct {
	path string
	opts Options
	db   *sql.DB
	conn *sql.Conn // the one connection: it holds the file's exclusive lock

	mu       sync.Mutex
	closed   bool
	plugins  map[string]*record
	order    []*record            // creation order
	sessions map[string][]*record // each session's, in creation order
	counters map[string]int64     // plugin, package, run, approval
}

// record is the in-memory copy of one stored Plugin, with its Listing, which every change
// of p keeps current so a list reads neither Packages nor maps.
type record struct {
	n       int64 // the N of <prefix>-N: the row's key
	p       runner.Plugin
	listing runner.Listing
}

var _ runner.Store = (*Store)(nil)

// Open opens the definition store in the file at path, creating the file (and its
// directory) when it does not exist, migrating an older schema forward, and reading
// every definition. A file it cannot use is refused (ErrRefused, ErrLocked) with an
// error that names it and says what to do; it is never reset.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: %s: %w", path, err)
	}
	s := &Store{path: abs, plugins: map[string]*record{}, sessions: map[string][]*record{}, counters: map[string]int64{}}
	if opts != nil {
		s.opts = *opts
	}
	if err := checkRegular(abs); err != nil {
		return nil, err
	}
	if err := checkHeader(abs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("sqlstore: creating the directory of %s: %w", abs, err)
	}
	if err := checkWritable(abs); err != nil {
		return nil, err
	}
	if err := s.open(ctx); err != nil {
		s.closeDB()
		return nil, err
	}
	return s, nil
}

// open connects, takes the lock, checks and migrates the schema and loads the cache.
func (s *Store) open(ctx context.Context) error {
	db, err := sql.Open("sqlite", dsn(s.path))
	if err != nil {
		return s.fileError("opening", err)
	}
	s.db = db
	// One connection for the Store's life: the exclusive lock is that connection's.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if s.conn, err = db.Conn(ctx); err != nil {
		return s.fileError("opening", err)
	}
	raised, err := s.opening(ctx)
	if err != nil {
		return err
	}
	s.logRaised(raised)
	var mode string
	if err := s.conn.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return s.fileError("switching to WAL", err)
	}
	if mode != "wal" {
		return fmt.Errorf("sqlstore: %s: the file cannot use SQLite's WAL journal (journal_mode is %q); put it on a local file system", s.path, mode)
	}
	return nil
}

// opening is the transaction that opens the file: it takes the file's exclusive lock,
// checks and migrates the schema, loads the cache and raises the counters that are below
// the stored ids, committing all of it or nothing.
func (s *Store) opening(ctx context.Context) (raised []raise, err error) {
	// BEGIN EXCLUSIVE takes the write lock now; in exclusive locking mode it is then held
	// until Close, so a second Store of the file fails here rather than at a later write.
	if _, err := s.conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		return nil, s.fileError("locking", err)
	}
	defer func() {
		if err != nil {
			_, _ = s.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	if err := s.load(ctx); err != nil {
		return nil, s.fileError("reading", err)
	}
	if raised, err = s.raiseCounters(ctx); err != nil {
		return nil, s.fileError("raising the id counters of", err)
	}
	if _, err := s.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return nil, s.fileError("writing", err)
	}
	return raised, nil
}

// dsn is the driver's name for path: a file: URI (so any path is escaped) with the
// pragmas every connection needs, locking first so WAL keeps its index in process memory
// and the lock is never shared. WAL is switched on by open, once the file is known to
// be a definition store: journal_mode is a lasting change to the file.
func dsn(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if u.Path[0] != '/' {
		u.Path = "/" + u.Path // a Windows drive: file:///C:/…
	}
	q := url.Values{}
	for _, p := range []string{"locking_mode(EXCLUSIVE)", "busy_timeout(0)", "foreign_keys(1)", "synchronous(FULL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return u.String() + "?" + q.Encode()
}

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// checkHeader refuses an existing, non-empty file that is not a SQLite database before
// the driver sees it.
func checkHeader(path string) error {
	f, err := openNoBlock(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if errors.Is(err, ErrRefused) {
		return err
	}
	if err != nil {
		return fmt.Errorf("sqlstore: opening %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil // empty: SQLite makes a database of it
	}
	if !bytes.Equal(head[:n], sqliteHeader) {
		return fmt.Errorf("%w: %s is not a SQLite database (it does not start with the SQLite header); it is corrupt or another kind of file. Move it aside (it is left as it was) to start an empty definition store there, or give the runtime another path", ErrRefused, path)
	}
	return nil
}

// checkWritable refuses a file or a directory this process cannot write. SQLite would
// open a read-only file read-only and fail at the lock with a bare I/O error, and WAL
// creates its log beside the file, so the directory must be writable too.
func checkWritable(path string) error {
	f, err := openNoBlock(path, os.O_RDWR)
	switch {
	case err == nil:
		f.Close()
	case errors.Is(err, ErrRefused):
		return err
	case !errors.Is(err, os.ErrNotExist):
		return notWritable(fmt.Sprintf("%s cannot be opened for writing (%v)", path, osReason(err)))
	}
	dir := filepath.Dir(path)
	probe, err := os.CreateTemp(dir, ".cordis-write-probe-*")
	if err == nil {
		probe.Close()
		err = os.Remove(probe.Name())
	}
	if err != nil {
		return notWritable(fmt.Sprintf("the directory of %s does not let this process create and remove files (%v)", path, osReason(err)))
	}
	return nil
}

// osReason is err without the path an *os.PathError repeats.
func osReason(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func notWritable(what string) error {
	return fmt.Errorf("%w: %s. The store writes every change to the file and keeps its write-ahead log beside it: make the file and its directory writable by the user this runtime runs as (chmod u+w, or chown), or give the runtime another path; the file is left as it was", ErrNotWritable, what)
}

// migrate checks that the file is a definition store of a schema this build knows and
// runs the missing steps, in the opening transaction.
func (s *Store) migrate(ctx context.Context) error {
	var app, version, tables int64
	for _, q := range []struct {
		sql string
		dst *int64
	}{{"PRAGMA application_id", &app}, {"PRAGMA user_version", &version}, {"SELECT count(*) FROM sqlite_schema", &tables}} {
		if err := s.conn.QueryRowContext(ctx, q.sql).Scan(q.dst); err != nil {
			return s.fileError("reading", err)
		}
	}
	switch {
	case app == 0 && version == 0 && tables == 0:
		// A new file: initialised below.
	case app != applicationID:
		return fmt.Errorf("%w: %s is a SQLite database of another application (application_id %#x, %d tables), not a cordis definition store; it is left as it was. Give the runtime another path", ErrRefused, s.path, app, tables)
	case version > SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, newer than the %d this build of cordiskit knows; it was written by a newer cordiskit. Upgrade this program, or open a copy of the file made before the upgrade; the file is left as it was", ErrRefused, s.path, version, SchemaVersion)
	}
	for v := version; v < SchemaVersion; v++ {
		if _, err := s.conn.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("sqlstore: migrating %s from schema version %d to %d: %w (nothing was changed)", s.path, v, v+1, err)
		}
	}
	if version < SchemaVersion {
		if _, err := s.conn.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, SchemaVersion)); err != nil {
			return s.fileError("writing", err)
		}
	}
	return nil
}

// fileError explains a driver error met while doing what to the file.
func (s *Store) fileError(what string, err error) error {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("sqlstore: %s %s: %w", what, s.path, err)
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w: %s is held by another open definition store (another process running this runtime, or a second Open in this one): %v. Stop the other process or close its Store first, or give this one its own file", ErrLocked, s.path, err)
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
		return notWritable(fmt.Sprintf("%s could not be written (%v)", s.path, err)) // made read-only after checkWritable
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return fmt.Errorf("%w: %s is corrupt (%v); it is left as it was. Restore it from a backup, or move it aside to start an empty definition store there", ErrRefused, s.path, err)
	}
	return fmt.Errorf("sqlstore: %s %s: %w", what, s.path, err)
}

// Path returns the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the file and releases its lock. Later calls fail with ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.closeDB()
}

func (s *Store) closeDB() error {
	var errs []error
	if s.conn != nil {
		errs = append(errs, s.conn.Close())
	}
	if s.db != nil {
		errs = append(errs, s.db.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlstore: closing %s: %w", s.path, err)
	}
	return nil
}
