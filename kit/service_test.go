package kit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type Greeter interface{ Greet(name string) string }

type english struct{}

func (english) Greet(name string) string { return "hello " + name }

var greeterSvc = kit.NewService[Greeter]("greeter")

func provider(name string) *kit.Plugin {
	return plugin(name, nil, func(c *kit.Context) error { return greeterSvc.Provide(c, english{}) })
}

func TestInjectLifecycle(t *testing.T) {
	root := newRoot(t, nil)
	var loads, unloads int
	consumer := root.Plugin(plugin("consumer", []string{"greeter"}, func(c *kit.Context) error {
		g, ok := greeterSvc.Get(c)
		if !ok {
			return errors.New("greeter missing during apply")
		}
		if g.Greet("x") != "hello x" {
			return errors.New("wrong greeter")
		}
		loads++
		return c.Effect(func() error { unloads++; return nil })
	}))

	mustState(t, consumer, kit.StatePending)
	if diff := cmp.Diff([]string{"greeter"}, consumer.WaitingFor()); diff != "" {
		t.Fatalf("WaitingFor (-want +got):\n%s", diff)
	}

	p1 := root.Plugin(provider("provider-1"))
	mustState(t, p1, kit.StateActive)
	mustState(t, consumer, kit.StateActive)
	if loads != 1 || len(consumer.WaitingFor()) != 0 {
		t.Fatalf("after provide: loads=%d waitingFor=%v", loads, consumer.WaitingFor())
	}

	if err := p1.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustState(t, consumer, kit.StatePending)
	if unloads != 1 {
		t.Fatalf("consumer effects not reversed when the provider went away: unloads=%d", unloads)
	}

	p2 := root.Plugin(provider("provider-2"))
	mustState(t, p2, kit.StateActive)
	mustState(t, consumer, kit.StateActive)
	if loads != 2 {
		t.Fatalf("consumer did not reload: loads=%d", loads)
	}

	if err := consumer.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := greeterSvc.Get(root); !ok {
		t.Fatal("disposing the consumer removed the provider's service")
	}
}

func TestProviderTornDownAfterDependentsSettle(t *testing.T) {
	root := newRoot(t, nil)
	var order []string
	p := root.Plugin(plugin("provider", nil, func(c *kit.Context) error {
		if err := c.Effect(func() error { order = append(order, "provider effect"); return nil }); err != nil {
			return err
		}
		return greeterSvc.Provide(c, english{})
	}))
	root.Plugin(plugin("dependent", []string{"greeter"}, func(c *kit.Context) error {
		return c.Effect(func() error {
			_, stillThere := greeterSvc.Get(root)
			order = append(order, "dependent effect")
			if stillThere {
				t.Error("dependent unloading while the service is still visible")
			}
			return nil
		})
	}))
	p.Dispose(context.Background())
	if got := strings.Join(order, ", "); got != "dependent effect, provider effect" {
		t.Fatalf("order: %s", got)
	}
}

func TestDuplicateProvideNamesBothOwners(t *testing.T) {
	root := newRoot(t, nil)
	root.Plugin(provider("first"))
	second := root.Plugin(provider("second"))
	mustState(t, second, kit.StateFailed)
	err := second.Err()
	if !errors.Is(err, kit.ErrDuplicate) || !strings.Contains(err.Error(), `"first"`) || !strings.Contains(err.Error(), `"second"`) {
		t.Fatalf("err = %v, want ErrDuplicate naming both plugins", err)
	}
}

func TestServiceHiddenWhileProviderLoading(t *testing.T) {
	root := newRoot(t, nil)
	var seenDuringApply bool
	root.Plugin(plugin("p", nil, func(c *kit.Context) error {
		if err := greeterSvc.Provide(c, english{}); err != nil {
			return err
		}
		_, seenDuringApply = greeterSvc.Get(root)
		return nil
	}))
	if seenDuringApply {
		t.Fatal("service visible before its provider became active")
	}
	if _, ok := greeterSvc.Get(root); !ok {
		t.Fatal("service not visible after its provider became active")
	}
}

func TestFailedDependentRetriesAfterDependencyReturns(t *testing.T) {
	root := newRoot(t, nil)
	fail := true
	dep := root.Plugin(plugin("flaky", []string{"greeter"}, func(c *kit.Context) error {
		if fail {
			return errors.New("not yet")
		}
		return nil
	}))
	p := root.Plugin(provider("p"))
	mustState(t, dep, kit.StateFailed)
	p.Dispose(context.Background())
	mustState(t, dep, kit.StatePending)
	fail = false
	root.Plugin(provider("p2"))
	mustState(t, dep, kit.StateActive)
}

func TestInspection(t *testing.T) {
	root := newRoot(t, nil)
	root.Plugin(provider("greeter-provider"))
	root.Plugin(plugin("waiting", []string{"missing-svc"}, noop))
	// IDs are the runtime's to assign; the rest is what an inspector shows, in creation order.
	ids := cmpopts.IgnoreFields(kit.FiberInfo{}, "ID", "Parent")
	wantFibers := []kit.FiberInfo{
		{Name: "root", State: kit.StateActive},
		{Name: "tools", State: kit.StateActive, Provides: []string{"tools"}},
		{Name: "timer", State: kit.StateActive, Provides: []string{"timer"}},
		{Name: "greeter-provider", State: kit.StateActive, Provides: []string{"greeter"}},
		{Name: "waiting", State: kit.StatePending, WaitingFor: []string{"missing-svc"}},
	}
	if diff := cmp.Diff(wantFibers, root.Fibers(), ids, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("Fibers (-want +got):\n%s", diff)
	}
	wantServices := []kit.ServiceInfo{
		{Key: "tools", Owner: "tools", OwnerState: kit.StateActive},
		{Key: "timer", Owner: "timer", OwnerState: kit.StateActive},
		{Key: "greeter", Owner: "greeter-provider", OwnerState: kit.StateActive},
	}
	if diff := cmp.Diff(wantServices, root.Services(), cmpopts.IgnoreFields(kit.ServiceInfo{}, "OwnerID")); diff != "" {
		t.Fatalf("Services (-want +got):\n%s", diff)
	}
}
