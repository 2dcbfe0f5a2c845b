package bind

import (
	"context"
	"testing"
)

// echoer is an interface service a mount may implement in JavaScript.
type echoer interface {
	Echo(ctx context.Context, s string) (string, error)
	Len(s string) int
}

type greeter struct{}

// TestNewSeamAdapterPanics checks the programmer errors NewSeamAdapter refuses.
func TestNewSeamAdapterPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"not an interface": func() { NewSeamAdapter(nil, func(*Seam) *greeter { return nil }) },
		"stale method":     func() { NewSeamAdapter([]SeamMethod{{Go: "Gone", JS: "gone"}}, func(*Seam) echoer { return nil }) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	a := NewSeamAdapter([]SeamMethod{{Go: "Echo", JS: "echo"}}, func(*Seam) echoer { return nil })
	if a.Iface != "bind.echoer" || len(a.Hidden) != 1 || a.Hidden[0] != "Len" {
		t.Errorf("adapter = %s, hidden %v; want bind.echoer with Len hidden", a.Iface, a.Hidden)
	}
}
