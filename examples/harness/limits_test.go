package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/bodylimit/rawclient"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/cordiskit/cordiskit/panel"
)

// TestServersBoundBodies replays the red team's requests against mcp -http -panel: a
// request announcing a 64 MiB body and sending 100 bytes is answered 413 at once by
// both servers; and (without -short, for it waits out the default deadlines) fifty
// requests trickling their bodies a byte every 2 s, half to each server, are all cut
// within the default body deadlines while an MCP client and the panel are served.
func TestServersBoundBodies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serve, stop := context.WithCancel(ctx)
	defer stop()
	t.Setenv(panelTokenEnv, panelTok)
	args := []string{"-dir", t.TempDir(), "-state", t.TempDir(), "-http", "127.0.0.1:0", "-panel", "127.0.0.1:0"}
	lines, wait := firstLines(t, 2, func(stderr io.Writer) error { return runMCP(serve, args, nil, stderr) })
	p, m := panelLine.FindStringSubmatch(lines[0]), mcpLine.FindStringSubmatch(lines[1])
	if p == nil || m == nil {
		t.Fatalf("stderr begins %q", lines)
	}
	panelURL, mcpURL, mcpTok := p[1], m[1], m[2]
	type target struct {
		name, addr, path, token string
		deadline                time.Duration
	}
	targets := []target{
		{"mcp", hostOf(mcpURL), mcpkit.HTTPPath, mcpTok, mcpkit.DefaultBodyTimeout},
		{"panel", hostOf(panelURL), "/rpc/inventory", panelTok, panel.DefaultBodyTimeout},
	}
	head := func(tg target, length string) rawclient.Head {
		return rawclient.Head(fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: %s\r\n", tg.path, tg.addr, tg.token, length))
	}
	for _, tg := range targets {
		res, err := rawclient.Announce(tg.addr, head(tg, "67108864"), make([]byte, 100), 5*time.Second)
		if err != nil || res.Status != http.StatusRequestEntityTooLarge || !res.Closed || !strings.Contains(res.Body, "67108864") {
			t.Errorf("%s: 64 MiB announced = %+v, %v; want 413 at once", tg.name, res, err)
		}
	}

	if testing.Short() {
		t.Log("-short: the trickling bodies are left out (they wait out the default deadlines)")
	} else {
		const n, slack = 50, 5 * time.Second
		results := make([]rawclient.Result, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			tg := targets[i%2]
			wg.Go(func() {
				results[i], errs[i] = rawclient.Trickle(tg.addr, head(tg, "100"), []byte(" "), 2*time.Second, tg.deadline+slack+10*time.Second)
			})
		}
		c := connectHTTP(t, ctx, mcpURL, mcpTok, "beside")
		c.call(t, ctx, "cordis_inspect_self", map[string]any{})
		inventory(t, panelURL, panelTok)
		wg.Wait()
		c.Close()
		longest := map[string]time.Duration{}
		for i, res := range results {
			tg := targets[i%2]
			longest[tg.name] = max(longest[tg.name], res.After)
			if errs[i] != nil || !res.Closed || res.Status != http.StatusRequestTimeout || res.After > tg.deadline+slack {
				t.Errorf("%s: trickling body %d: %d after %v, closed %v, %v; want 408 within %v", tg.name, i, res.Status, res.After, res.Closed, errs[i], tg.deadline)
			}
		}
		t.Logf("the last trickling body closed after %v (mcp, deadline %v) and %v (panel, deadline %v)",
			longest["mcp"].Round(time.Millisecond), mcpkit.DefaultBodyTimeout, longest["panel"].Round(time.Millisecond), panel.DefaultBodyTimeout)
	}
	stop()
	if err := wait(); err != nil {
		t.Fatalf("mcp -http -panel after an interrupt: %v", err)
	}
}

// hostOf is the host:port of an http:// URL.
func hostOf(url string) string {
	rest := strings.TrimPrefix(url, "http://")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return rest
}
