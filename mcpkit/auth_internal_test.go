package mcpkit

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkHTTPGuard: what the guard adds to one request in front of the SDK's handler
// (an Origin-less request with a bearer token: the token's SHA-256, the lookup, the SDK's
// RequireBearerToken and its context), beside the same request through InsecureNoToken.
func BenchmarkHTTPGuard(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts *HTTPOptions
	}{
		{"token", &HTTPOptions{Tokens: []Token{{Token: "alice-token-0123456789", Session: "alice"}, {Token: "process-token-0123456789"}}}},
		{"no-token", &HTTPOptions{InsecureNoToken: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			g, err := newHTTPGuard(bc.opts)
			if err != nil {
				b.Fatal(err)
			}
			h, err := g.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
			if err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest("POST", "/mcp", nil)
			req.Header.Set("Authorization", "Bearer alice-token-0123456789")
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, req)
			}
			if w.Code != http.StatusOK {
				b.Fatalf("status %d: %s", w.Code, w.Body)
			}
		})
	}
}
