package benchfix

import (
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// TestBareHost mounts the plugin body twice, emits to both listeners and unmounts one.
func TestBareHost(t *testing.T) {
	h := NewBareHost()
	body := OnEvent(PluginBody, "bench/tick")
	var pls []*BarePlugin
	for id := range 2 {
		pl, err := h.Mount(BareSource(WithID(body, id)))
		if err != nil {
			t.Fatalf("mount %d: %v", id, err)
		}
		if want := "echo-tool-" + string(rune('0'+id)); pl.name != want {
			t.Errorf("mount %d is named %q, want %q", id, pl.name, want)
		}
		pls = append(pls, pl)
	}
	if n := h.Listeners("bench/tick"); n != 2 {
		t.Fatalf("%d listeners of bench/tick, want 2", n)
	}
	if err := h.Emit("bench/tick", 1, "hello"); err != nil {
		t.Fatal(err)
	}
	for i, pl := range pls {
		count, ok := goja.AssertFunction(pl.obj.Get("count"))
		if !ok {
			t.Fatalf("mount %d has no count()", i)
		}
		if v, err := count(pl.obj); err != nil || v.ToInteger() != 1 {
			t.Errorf("mount %d: count() = %v, %v after one emit, want 1", i, v, err)
		}
	}
	h.Unmount(pls[0])
	if n := h.Listeners("bench/tick"); n != 1 {
		t.Errorf("%d listeners after one unmount, want 1", n)
	}
}

// TestMountFailure: a body that does not return a plugin is refused, with the reason.
func TestMountFailure(t *testing.T) {
	_, err := NewBareHost().Mount(BareSource("return { name: 'x' }"))
	if err == nil || !strings.Contains(err.Error(), "no apply()") {
		t.Errorf("Mount of a plugin without apply: %v, want an error naming apply()", err)
	}
}

// TestPackages: one declaring package per Pkgs, each declaring its share.
func TestPackages(t *testing.T) {
	files := Budget.Packages()
	if len(files) != Budget.Pkgs {
		t.Fatalf("%d files, want %d", len(files), Budget.Pkgs)
	}
	p9 := files["p9/p9.go"]
	for _, want := range []string{"package p9\n", "var Ev49 = kit.NewWaterfall[P9Ev49Payload, P9Result](\"p9/ev-49\")", "var Svc19 =", "\tList9(kind P9Kind) []P9Item\n", "var Tool4 ="} {
		if !strings.Contains(p9, want) {
			t.Errorf("p9/p9.go lacks %q", want)
		}
	}
	if strings.Contains(p9, "Ev50 ") || strings.Contains(p9, "Svc20 ") {
		t.Error("p9/p9.go declares more than its share")
	}
}
