package pgstore

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/pgtest"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/jackc/pgx/v5"
)

// A silenceProxy forwards a unix socket to the cluster's; silence makes every connection
// open now go quiet without a word — what either side sends is dropped, nothing is closed
// — as a network partition does, while new connections pass.
type silenceProxy struct {
	dsn string // the database's DSN through the proxy

	mu    sync.Mutex
	quiet []*atomic.Bool // one per connection
	conns []net.Conn
}

func newSilenceProxy(t *testing.T, dsn string) *silenceProxy {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port))
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", cfg.Port)))
	if err != nil {
		t.Fatal(err)
	}
	p := &silenceProxy{dsn: fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", dir, cfg.Port, cfg.User, cfg.Database)}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", target)
			if err != nil {
				c.Close()
				continue
			}
			quiet := new(atomic.Bool)
			p.mu.Lock()
			p.quiet, p.conns = append(p.quiet, quiet), append(p.conns, c, s)
			p.mu.Unlock()
			pipe := func(dst, src net.Conn) {
				defer dst.Close()
				defer src.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := src.Read(buf)
					if n > 0 && !quiet.Load() {
						if _, werr := dst.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						if err != io.EOF {
							return
						}
						return
					}
				}
			}
			wg.Go(func() { pipe(s, c) })
			wg.Go(func() { pipe(c, s) })
		}
	})
	return p
}

// silence makes every connection open now drop what either side sends.
func (p *silenceProxy) silence() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, q := range p.quiet {
		q.Store(true)
	}
}

// TestRelayNoticesSilentListener: the listening connection of a runner's Store goes
// quiet without a word (a partition: nothing is closed, nothing arrives), and another
// process changes a Plugin. The Store pings the connection after listenHeartbeat of
// silence, gives it up when the ping gets no answer within as much again, listens on a
// new one and says notices were missed; the runner tells the Plugin's session to read
// again. Without the ping nothing would ever tell it.
func TestRelayNoticesSilentListener(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the heartbeat takes 5 to 10 s to notice a silent connection")
	}
	dsn := pgtest.DSN(t)
	proxy := newSilenceProxy(t, dsn)
	_, a, _ := newRelayRunner(t, dsn, nil, runner.Options{})
	rootB, _, _ := newRelayRunner(t, proxy.dsn, &Options{Timeout: 2 * time.Second}, runner.Options{})
	heard := relayed(t, rootB)
	alice := defineClock(t, a, "alice")
	eventually(t, "b to hear the define", func() bool { return len(heard) > 0 && (<-heard).PluginID == alice.PluginID })
	proxy.silence()
	silenced := time.Now()
	if _, err := a.Run(kit.WithSession(bg, "alice"), dynamic.RunInput{PluginID: alice.PluginID, PackageID: alice.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-heard:
		if ev.Session != "alice" || ev.Change != runner.Updated {
			t.Fatalf("after its listening connection went quiet the runner told %+v", ev)
		}
		t.Logf("the run reached the runner whose listening connection went quiet %v later (heartbeat %v)", time.Since(silenced), listenHeartbeat)
	case <-time.After(time.Minute):
		t.Fatal("a minute after its listening connection went quiet, the runner had not been told of the run")
	}
}
