package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const carolTok = "carol-token-0123456789"

// Three people of one mcp -http: alice spins through a throw-away mount (cordis_mount) and
// carol through a host half (cordis_define + cordis_run), each calling their spinning tool
// back to back, while bob, a bystander, calls his own tool. Every session's JavaScript runs
// in an engine of its own, so bob's calls wait for none of theirs: each ends within half
// of one spin (the bound; it shares the cores with the spinners). Under one lock for every
// session, bob's call would wait for the spins in progress to end.
func TestMCPHTTPBystanderWaitsForNoOtherSessionsJavaScript(t *testing.T) {
	if testing.Short() {
		t.Skip("spins for seconds")
	}
	const spin = time.Second // per call, under the runtime's CallTimeout (10s)
	t.Setenv(mcpTokenEnv, "")
	tokens := secretFile(t, "alice "+aliceTok+"\nbob "+bobTok+"\ncarol "+carolTok+"\n")
	p := startMCPHTTP(t, "-dir", t.TempDir(), "-state", t.TempDir(), "-session-tokens", tokens)
	alice, bob, carol := p.connect(t, aliceTok, "laptop"), p.connect(t, bobTok, "laptop"), p.connect(t, carolTok, "laptop")
	ctx := context.Background()

	spinner := func(tool string) string {
		return fmt.Sprintf(`return { name: '%s', apply(ctx) {
			ctx.tools.register({ name: '%s', description: 'spins', parameters: { type: 'object' },
				execute: () => { const t = Date.now(); while (Date.now() - t < %d) {} return 'spun' } })
		} }`, tool, tool, spin.Milliseconds())
	}
	alice.call(t, ctx, "cordis_mount", map[string]any{"code": spinner("alice_spin")})
	var d struct{ PluginID, PackageID string }
	out := carol.call(t, ctx, "cordis_define", map[string]any{"plugin": map[string]string{"kind": "new", "idPrefix": "spin"},
		"name": "Spin", "purpose": "Spins.", "code": map[string]string{"host": spinner("carol_spin")}})
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.PluginID == "" {
		t.Fatalf("carol defines: %s", out)
	}
	if out := carol.call(t, ctx, "cordis_run", map[string]any{"pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run"}); !strings.Contains(out, `"status":"running"`) {
		t.Fatalf("carol runs: %s", out)
	}
	bob.call(t, ctx, "cordis_mount", map[string]any{"code": `return { name: 'echo', apply(ctx) {
		ctx.tools.register({ name: 'bob_echo', description: 'echoes', parameters: { type: 'object' }, execute: () => 'bob' })
	} }`})

	call := func(c *httpClient, tool string) (string, error) {
		res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, content := range res.Content {
			if tc, ok := content.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		if res.IsError {
			return "", fmt.Errorf("%s failed: %s", tool, b.String())
		}
		return b.String(), nil
	}
	const spins = 3
	var wg sync.WaitGroup
	errs := make(chan error, 2*spins)
	for _, s := range []struct {
		c    *httpClient
		tool string
	}{{alice, "alice_spin"}, {carol, "carol_spin"}} {
		wg.Go(func() {
			for range spins {
				if out, err := call(s.c, s.tool); err != nil || !strings.Contains(out, "spun") {
					errs <- fmt.Errorf("%s: %q %v", s.tool, out, err)
					return
				}
			}
		})
	}
	time.Sleep(100 * time.Millisecond) // both spin
	var worst time.Duration
	n := 0
	for deadline := time.Now().Add((spins - 1) * spin); time.Now().Before(deadline); n++ {
		start := time.Now()
		if out, err := call(bob, "bob_echo"); err != nil || !strings.Contains(out, "bob") {
			t.Fatalf("bob_echo: %q %v", out, err)
		}
		worst = max(worst, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if worst > spin/2 {
		t.Errorf("bob's slowest of %d calls took %v while alice and carol spun %v per call back to back; want at most %v", n, worst, spin, spin/2)
	}
	t.Logf("bob's slowest of %d calls: %v (bound %v)", n, worst, spin/2)
}
