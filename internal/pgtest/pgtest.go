// Package pgtest gives tests a throwaway PostgreSQL server: a cluster made with initdb in
// a temporary directory, started with pg_ctl, reached on a unix socket in that directory
// (no TCP port, so test binaries never clash), stopped and removed at the end.
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.DSN(t) // a fresh database on the binary's cluster, dropped after t
//		…
//	}
//
// One cluster is shared by a test binary: started on the first DSN call, stopped by
// Main once the tests have run. Each DSN call creates a new database on it. A test that
// stops its server (to see what a client does when the database goes away) starts a
// private one with New.
//
// # Finding PostgreSQL
//
// The server's programs (initdb, pg_ctl, postgres) are looked for in
// $PG_BINDIR when it is set (there only), else in Debian's /usr/lib/postgresql/VERSION/bin (the newest version), then
// on PATH. Where there are none, tests that need a server are skipped, except under
// CI=true, where they fail: CI installs Debian's postgresql package (see .ci/run).
//
// # Running as root
//
// The server refuses to run as root. When the test binary is root, initdb and pg_ctl run
// as an unprivileged system user: "postgres" when it exists (Debian's package creates
// it), else "cordis-pgtest", which pgtest creates with useradd (a system user with no
// home and no login shell). The cluster's directory is made that user's, mode 0700, so
// only that user and root can reach the socket; the cluster trusts every connection that
// reaches it, as the superuser named after that user. Otherwise the server runs as the
// user running the tests.
//
// # Leftovers
//
// A test binary killed before Main stops its cluster leaves the server running. Every
// start stops and removes the clusters of test binaries that are no longer alive (the
// directories named cordis-pgtest-* in the temporary directory whose owner.pid names a
// process that is gone).
//
// The server is started with fsync off: a cluster lives for one test run, and a stopped
// server (pg_ctl stop -m immediate, as a crash) still keeps every committed
// transaction, since the kernel holds what was written. Only the machine losing power
// loses them.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
)

// serverUser is the system user pgtest creates when root runs the tests and Debian's
// "postgres" user does not exist.
const serverUser = "cordis-pgtest"

// port names the socket; with no TCP listener any number does.
const port = 5432

// A Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	dir  string // owner.pid, data/, the socket, log
	bin  string
	cred *syscall.Credential // the server's user when root runs the tests
	role string              // the superuser role: the name of the server's OS user
	dbs  atomic.Int64
}

// ErrNoPostgres reports that the server's programs were not found.
var ErrNoPostgres = errors.New("pgtest: PostgreSQL's programs (initdb, pg_ctl, postgres) were not found; install Debian's postgresql package (apt-get install postgresql), or set PG_BINDIR to the directory that holds them")

// Start makes a cluster in a new temporary directory and starts its server.
func Start(ctx context.Context) (*Cluster, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	reapLeftovers(bin)
	c := &Cluster{bin: bin}
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		u, err := unprivilegedUser(ctx)
		if err != nil {
			return nil, err
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		c.role = u.Username
	} else {
		u, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("pgtest: who runs the tests: %w", err)
		}
		c.role = u.Username
	}
	if c.dir, err = os.MkdirTemp("", "cordis-pgtest-"); err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if len(c.socket()) > 100 {
		os.RemoveAll(c.dir)
		return nil, fmt.Errorf("pgtest: the socket path %s is longer than a unix socket allows; set TMPDIR to a shorter directory", c.socket())
	}
	if err := c.init(ctx, uid, gid); err != nil {
		os.RemoveAll(c.dir)
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		os.RemoveAll(c.dir)
		return nil, err
	}
	return c, nil
}

// init writes owner.pid and runs initdb with the server's settings.
func (c *Cluster) init(ctx context.Context, uid, gid int) error {
	if err := os.WriteFile(filepath.Join(c.dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if uid >= 0 {
		if err := os.Chown(c.dir, uid, gid); err != nil {
			return fmt.Errorf("pgtest: giving %s to the server's user: %w", c.dir, err)
		}
	}
	if err := c.run(ctx, "initdb", "-D", c.data(), "--auth=trust", "--no-sync", "--encoding=UTF8", "--no-locale", "--no-instructions"); err != nil {
		return err
	}
	conf := fmt.Sprintf("\n# pgtest: a throwaway cluster on a unix socket only\nlisten_addresses = ''\nunix_socket_directories = '%s'\nunix_socket_permissions = 0700\nport = %d\nfsync = off\nfull_page_writes = off\nmax_connections = 200\n", c.dir, port)
	f, err := os.OpenFile(filepath.Join(c.data(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(conf)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return fmt.Errorf("pgtest: configuring the cluster: %w", err)
	}
	return nil
}

func (c *Cluster) data() string   { return filepath.Join(c.dir, "data") }
func (c *Cluster) socket() string { return filepath.Join(c.dir, fmt.Sprintf(".s.PGSQL.%d", port)) }

// Start starts the cluster's server (again, after StopImmediate) and waits until it
// accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	return c.run(ctx, "pg_ctl", "start", "-w", "-t", "120", "-D", c.data(), "-l", filepath.Join(c.dir, "log"))
}

// StopImmediate stops the server as a crash would (pg_ctl stop -m immediate): every
// connection is cut, nothing is checkpointed, and the next Start recovers from the WAL.
func (c *Cluster) StopImmediate(ctx context.Context) error {
	return c.run(ctx, "pg_ctl", "stop", "-w", "-m", "immediate", "-D", c.data())
}

// Close stops the server and removes its directory.
func (c *Cluster) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	if _, statErr := os.Stat(filepath.Join(c.data(), "postmaster.pid")); statErr == nil {
		err = c.run(ctx, "pg_ctl", "stop", "-w", "-m", "fast", "-D", c.data())
	}
	return errors.Join(err, os.RemoveAll(c.dir))
}

// DSN is the connection string of database on the cluster.
func (c *Cluster) DSN(database string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", c.dir, port, c.role, database)
}

// CreateDatabase creates a new, empty database and returns its DSN.
func (c *Cluster) CreateDatabase(ctx context.Context) (name, dsn string, err error) {
	name = fmt.Sprintf("test_%d_%d", os.Getpid(), c.dbs.Add(1))
	if err := c.admin(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", "", err
	}
	return name, c.DSN(name), nil
}

// DropDatabase drops database name, cutting its connections.
func (c *Cluster) DropDatabase(ctx context.Context, name string) error {
	return c.admin(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

func (c *Cluster) admin(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return fmt.Errorf("pgtest: connecting to the cluster in %s: %w", c.dir, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("pgtest: %s: %w", sql, err)
	}
	return nil
}

// run runs one of the server's programs as the server's user, in the cluster's directory.
func (c *Cluster) run(ctx context.Context, prog string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := fmt.Sprintf("pgtest: %s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
		if log, rerr := os.ReadFile(filepath.Join(c.dir, "log")); rerr == nil && prog == "pg_ctl" {
			msg += "\nserver log:\n" + tail(string(log), 4000)
		}
		return errors.New(msg)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// findBin is the directory of initdb, pg_ctl and postgres.
func findBin() (string, error) {
	if d := os.Getenv("PG_BINDIR"); d != "" {
		if hasAll(d, "initdb", "pg_ctl", "postgres") {
			return d, nil
		}
		return "", fmt.Errorf("%w (PG_BINDIR is %s)", ErrNoPostgres, d)
	}
	var dirs []string
	debian, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(debian, func(a, b string) int { return version(b) - version(a) })
	dirs = append(dirs, debian...)
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, d := range dirs {
		if hasAll(d, "initdb", "pg_ctl", "postgres") {
			return d, nil
		}
	}
	return "", ErrNoPostgres
}

// version is the VERSION of /usr/lib/postgresql/VERSION/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func hasAll(dir string, progs ...string) bool {
	for _, p := range progs {
		if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// unprivilegedUser is the user the server runs as when root runs the tests: Debian's
// postgres, else serverUser, created when missing.
func unprivilegedUser(ctx context.Context) (*user.User, error) {
	for _, name := range []string{"postgres", serverUser} {
		if u, err := user.Lookup(name); err == nil && u.Uid != "0" {
			return u, nil
		}
	}
	out, err := exec.CommandContext(ctx, "useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", serverUser).CombinedOutput()
	if u, lerr := user.Lookup(serverUser); err != nil && lerr == nil {
		return u, nil // another test binary made it first
	}
	if err != nil {
		return nil, fmt.Errorf("pgtest: PostgreSQL refuses to run as root, and creating the system user %s to run it failed: %v\n%s\nCreate an unprivileged user named postgres or %s, or run the tests as another user", serverUser, err, out, serverUser)
	}
	return user.Lookup(serverUser)
}

// reapLeftovers stops and removes the clusters of test binaries that died before they
// could (see "Leftovers" in the package doc).
func reapLeftovers(bin string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "cordis-pgtest-*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || alive(pid) {
			continue
		}
		c := &Cluster{dir: dir, bin: bin}
		if fi, err := os.Stat(dir); err == nil && os.Geteuid() == 0 {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
				c.cred = &syscall.Credential{Uid: st.Uid, Gid: st.Gid}
			}
		}
		_ = c.Close()
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// The cluster a test binary shares.
var shared struct {
	once     sync.Once
	cluster  *Cluster // started here, stopped by Main
	attached *Cluster // a parent process's (ClusterEnv)
	err      error
}

// Main runs the tests of m, checks for leaked goroutines (goleak) and stops the shared
// cluster, if a test started it; then it exits.
func Main(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if shared.cluster != nil {
			if err := shared.cluster.Close(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				code = max(code, 1)
			}
		}
		os.Exit(code)
	}))
}

// ClusterEnv, set to what Cluster.Env returns, makes Shared use that cluster (a parent
// process's, running a suite again in a child) rather than start one; the child does not
// stop it.
const ClusterEnv = "CORDIS_PGTEST_CLUSTER"

// Env is the ClusterEnv setting that hands c to a child process.
func (c *Cluster) Env() string { return ClusterEnv + "=" + c.role + "@" + c.dir }

// Shared returns the test binary's cluster, starting it on first use (or the one
// ClusterEnv names). Where PostgreSQL is not installed it skips t, or fails it under
// CI=true.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	shared.once.Do(func() {
		if role, dir, ok := strings.Cut(os.Getenv(ClusterEnv), "@"); ok {
			shared.attached = &Cluster{dir: dir, role: role}
			return
		}
		shared.cluster, shared.err = Start(context.Background())
	})
	if shared.attached != nil {
		return shared.attached
	}
	check(t, shared.err)
	return shared.cluster
}

// DSN creates a fresh database on the shared cluster, dropped when t ends, and returns
// its connection string.
func DSN(t testing.TB) string {
	t.Helper()
	c := Shared(t)
	name, dsn, err := c.CreateDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.DropDatabase(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	return dsn
}

// New starts a cluster of t's own, closed when t ends: for a test that stops its server.
func New(t testing.TB) *Cluster {
	t.Helper()
	c, err := Start(context.Background())
	check(t, err)
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// check skips t when PostgreSQL is not installed (fails it under CI=true) and fails it on
// any other error.
func check(t testing.TB, err error) {
	t.Helper()
	switch {
	case err == nil:
	case errors.Is(err, ErrNoPostgres) && os.Getenv("CI") != "true":
		t.Skip(err)
	default:
		t.Fatal(err)
	}
}
