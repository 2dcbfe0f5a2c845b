package sandbox

import (
	"strings"
	"testing"
	"time"
)

// A listener of another mount that runs inline inside a Go call (here tools/change, emitted
// by ctx.tools.register) is not charged to the calling entry's bound — up to that bound
// once more (see Loop.excuse): MountTimeout covers the three runs the listener gets before
// it is struck out.
func TestInlineDeliveryIsNotChargedToTheCaller(t *testing.T) {
	h := newHost(t, &Timeouts{VM: 150 * time.Millisecond, Mount: 400 * time.Millisecond, Call: 100 * time.Millisecond})
	ma, fa := h.mustMount(`return { name: 'spinner', apply(ctx) {
		ctx.on('tools/change', () => { for (;;) {} })
	} }`)
	defer h.unmount(ma, fa)

	start := time.Now()
	mb, fb, err := h.mount(`return { name: 'registrar', apply(ctx) {
		for (const name of ['one', 'two', 'three']) {
			ctx.tools.register({ name, description: 'd', execute: () => name })
		}
	} }`)
	if err != nil {
		t.Fatalf("mount B failed because of A's listener (after %v): %v", time.Since(start), err)
	}
	defer h.unmount(mb, fb)
	if elapsed := time.Since(start); elapsed < 250*time.Millisecond {
		t.Errorf("the spinning listener ran only %v in all (want 3 × CallTimeout)", elapsed)
	}
	for _, name := range []string{"one", "two", "three"} {
		if out, err := h.call(name, `{}`); err != nil || out != `"`+name+`"` {
			t.Errorf("%s: %s %v", name, out, err)
		}
	}
	log := h.log.String()
	if n := strings.Count(log, "ran longer than CallTimeout (100ms) and was interrupted"); n != 3 {
		t.Errorf("%d interrupted listeners logged, want 3:\n%s", n, log)
	}
	// Three timeouts in a row removed the listener: the next registration does not wait.
	if !strings.Contains(log, `the listener of \"tools/change\" ran longer than CallTimeout (100ms) 3 times in a row and was removed`) ||
		!strings.Contains(log, "mount=dyn-1") {
		t.Errorf("the removal is not logged with the mount id:\n%s", log)
	}
	// Had it run, it would have spun until CallTimeout and been logged before the mount
	// returned (the registration waits for its listeners, as the three above did).
	mc, fc := h.mustMount(`return { name: 'late', apply(ctx) { ctx.tools.register({ name: 'four', description: 'd', execute: () => 4 }) } }`)
	defer h.unmount(mc, fc)
	if n := strings.Count(h.log.String(), "ran longer than CallTimeout (100ms) and was interrupted"); n != 3 {
		t.Errorf("the removed listener still ran: %d interrupted listeners logged, want 3:\n%s", n, h.log.String())
	}

	// The caller's own code is still bounded.
	start = time.Now()
	if _, _, err := h.mount(`return { name: 'own', apply(ctx) { ctx.tools.register({ name: 'five', description: 'd', execute: () => 5 }); for (;;) {} } }`); err == nil ||
		!strings.Contains(err.Error(), "ran longer than MountTimeout") {
		t.Errorf("own loop: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("own loop ran %v", d)
	}
}

// A listener that times out now and then is not removed: only consecutive timeouts count.
func TestListenerStrikesReset(t *testing.T) {
	// The spinning calls each take the call bound; the quick ones must stay far from it on a
	// loaded machine under -race, or they too would count as timeouts.
	h := newHost(t, &Timeouts{VM: 5 * time.Second, Mount: 5 * time.Second, Call: 500 * time.Millisecond})
	ma, fa := h.mustMount(`return { name: 'flaky', apply(ctx) {
		globalThis.calls = 0
		ctx.on('tools/change', (tool, registered) => { calls++; if (registered && tool !== 'ok') for (;;) {} })
	} }`)
	defer h.unmount(ma, fa)
	for i, name := range []string{"s1", "s2", "ok", "s3", "s4", "ok2"} {
		mb, fb := h.mustMount(`return { name: 'r', apply(ctx) { ctx.tools.register({ name: '` + name + `', description: 'd', execute: () => 1 }) } }`)
		h.unmount(mb, fb)
		_ = i
	}
	// Every registration that spins is followed by an unregistration that does not: no two
	// timeouts in a row.
	if got := h.eval(ma, `calls`); got != `12` {
		t.Errorf("calls = %s, want 12 (the listener was never removed)", got)
	}
	if strings.Contains(h.log.String(), "times in a row and was removed") {
		t.Errorf("removed:\n%s", h.log.String())
	}
}
