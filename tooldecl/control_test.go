package tooldecl_test

import (
	"context"
	"testing"

	"github.com/cordiskit/cordiskit"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl"
	"github.com/google/go-cmp/cmp"
)

func names(schemas []kit.ToolSchema) []string {
	var ns []string
	for _, s := range schemas {
		ns = append(ns, s.Name)
	}
	return ns
}

// The control tools are exactly the tools the toolset and the runner register, in the
// order they register them: a tool added to either set without its declaration in the
// list, or one listed that nobody registers, fails here.
func TestControlToolsAreWhatToolsetAndRunnerRegister(t *testing.T) {
	rt, err := cordiskit.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	registered := names(rt.Invoker().Tools())
	if diff := cmp.Diff(registered, tooldecl.ControlTools()); diff != "" {
		t.Errorf("ControlTools (-registered +listed):\n%s", diff)
	}
	for _, name := range registered {
		if !tooldecl.IsControl(name) {
			t.Errorf("IsControl(%q) = false", name)
		}
	}
	for _, name := range []string{"", "canary_probe", "cordis_", "CORDIS_RUN", "cordis_run ", "cordis_inspect_all"} {
		if tooldecl.IsControl(name) {
			t.Errorf("IsControl(%q) = true", name)
		}
	}
	// The list is the caller's: changing it changes nothing here.
	list := tooldecl.ControlTools()
	list[0] = "canary_probe"
	if tooldecl.IsControl("canary_probe") || tooldecl.ControlTools()[0] == "canary_probe" {
		t.Error("a change to the returned list reached the package's list")
	}
}

// gate stands in for a runtime's tools/pre-execute: each listener adds who it is.
var gate = kit.NewWaterfall[string, string]("test/gate")

// TestShield: dynamic code's listeners — under an owner or a fiber below it — never see a
// control tool's call through the shielded ctx; the runtime's own listeners do, and every
// other tool's call reaches them all. A nil owner is skipped; no owner changes nothing.
func TestShield(t *testing.T) {
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	plugin := func(c *kit.Context, who string) *kit.Fiber {
		f := c.Plugin(&kit.Plugin{Name: who, Apply: func(c *kit.Context) error {
			_, err := gate.On(c, func(ctx context.Context, tool string, next func() (string, error)) (string, error) {
				r, err := next()
				return who + ">" + r, err
			})
			return err
		}})
		if err := f.Err(); err != nil {
			t.Fatal(err)
		}
		return f
	}
	plugin(root, "runtime")
	mounts := plugin(root, "mounts")
	plugin(mounts.Context(), "mount")
	halves := plugin(root, "halves")

	emit := func(ctx context.Context, tool string) string {
		got, err := gate.Emit(ctx, root, tool, func() (string, error) { return "allow", nil })
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return got
	}
	all := emit(context.Background(), "canary_probe")
	for _, tc := range []struct {
		tool   string
		owners []*kit.Fiber
		want   string
	}{
		{"cordis_mount", []*kit.Fiber{mounts, halves}, "runtime>allow"},
		{"cordis_stop", []*kit.Fiber{mounts, nil, halves}, "runtime>allow"},
		{"cordis_undefine", []*kit.Fiber{halves}, "runtime>mounts>mount>allow"},
		{"cordis_inspect", []*kit.Fiber{mounts}, "runtime>halves>allow"},
		{"canary_probe", []*kit.Fiber{mounts, halves}, all},
		{"cordis_run", nil, all},
		{"cordis_run", []*kit.Fiber{nil}, all},
	} {
		if got := emit(tooldecl.Shield(context.Background(), tc.tool, tc.owners...), tc.tool); got != tc.want {
			t.Errorf("%s shielding %d owners: gate = %q, want %q", tc.tool, len(tc.owners), got, tc.want)
		}
	}
	if all != "runtime>mounts>mount>halves>allow" {
		t.Errorf("unshielded gate = %q", all)
	}
	ctx := context.Background()
	if tooldecl.Shield(ctx, "canary_probe", mounts) != ctx || tooldecl.Shield(ctx, "cordis_run", nil) != ctx {
		t.Error("Shield changed the ctx of a call it does not shield")
	}
}
