package kit_test

import (
	"context"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

func TestSession(t *testing.T) {
	bg := context.Background()
	tests := []struct {
		name   string
		ctx    context.Context
		wantID string
		wantOK bool
	}{
		{"none", bg, "", false},
		{"nil ctx", nil, "", false},
		{"set", kit.WithSession(bg, "s-1"), "s-1", true},
		{"innermost wins", kit.WithSession(kit.WithSession(bg, "outer"), "inner"), "inner", true},
		{"blank clears", kit.WithSession(kit.WithSession(bg, "outer"), ""), "", false},
		{"survives derived contexts", func() context.Context {
			ctx, cancel := context.WithCancel(kit.WithSession(bg, "s-2"))
			cancel()
			return ctx
		}(), "s-2", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := kit.SessionFrom(tt.ctx)
			if id != tt.wantID || ok != tt.wantOK {
				t.Fatalf("SessionFrom = (%q, %v), want (%q, %v)", id, ok, tt.wantID, tt.wantOK)
			}
		})
	}
}

// A string key of another package cannot collide with the session key.
func TestSessionKeyIsPrivate(t *testing.T) {
	//lint:ignore SA1029 a string key is the forgery this test tries
	ctx := context.WithValue(context.Background(), "session", "forged")
	if id, ok := kit.SessionFrom(ctx); ok {
		t.Fatalf("SessionFrom read a forged string key: %q", id)
	}
}
