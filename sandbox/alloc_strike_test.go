package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/internal/childtest"
)

// TestAllocStrikesListener pins that a listener stopped by its allocation budget counts a
// strike, as one stopped by its time bound does: three in a row remove it.
func TestAllocStrikesListener(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newAllocHost(t, &Timeouts{VM: allocCallBound, Mount: allocCallBound, Call: allocCallBound}, &Limits{MaxEntryAlloc: allocBudget})
	m, f := h.mustMount(`return { name: 'hog', apply(ctx) {
		globalThis.runs = 0
		ctx.on('test/ask', () => { runs++; const keep = []; for (let i = 0; ; i++) keep.push({ i, a: [i] }) })
	} }`)
	defer h.unmount(m, f)
	w := watchHeap()
	defer w.growth()
	for i := range 4 {
		err := testAsk.Emit(context.Background(), h.root, askEvent{Question: fmt.Sprint(i)})
		var ae *AllocError
		if i < 3 && !errors.As(err, &ae) {
			t.Errorf("emit %d: %v; want the listener's *AllocError", i, err)
		}
	}
	if got := h.eval(m, `runs`); got != "3" {
		t.Errorf("the listener ran %s times; want 3 (struck out after three stops)", got)
	}
	if want := `the listener of \"test/ask\" allocated more than Limits.MaxEntryAlloc in one call 3 times in a row and was removed`; !strings.Contains(h.log.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, tail(h.log.String(), 20))
	}
}

// TestAllocStrikesTool pins the same for a tool: the third call stopped by the budget
// strikes it out, with an error that says why, and the next call is refused at once.
func TestAllocStrikesTool(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newAllocHost(t, &Timeouts{VM: allocCallBound, Mount: allocCallBound, Call: allocCallBound}, &Limits{MaxEntryAlloc: allocBudget})
	m, f := h.mustMount(`return { name: 'hog', apply(ctx) {
		globalThis.runs = 0
		ctx.tools.register({ name: 'hog', description: 'd', execute: () => {
			runs++; const keep = []; for (let i = 0; ; i++) keep.push({ i, a: [i] })
		} })
	} }`)
	defer h.unmount(m, f)
	w := watchHeap()
	defer w.growth()
	for i := range 4 {
		_, err := h.call("hog", `{}`)
		var ae *AllocError
		var so *StruckOutError
		switch {
		case i < 2 && (!errors.As(err, &ae) || errors.As(err, &so)):
			t.Errorf("call %d: %v; want the *AllocError alone", i, err)
		case i == 2 && (!errors.As(err, &ae) || !errors.As(err, &so)):
			t.Errorf("call %d: %v; want a *StruckOutError with the call's *AllocError", i, err)
		case i == 3 && (errors.As(err, &ae) || !errors.As(err, &so)):
			t.Errorf("call %d: %v; want the refusal alone", i, err)
		}
		if so != nil && !strings.Contains(so.Error(), "3 calls in a row were stopped for allocating more than Limits.MaxEntryAlloc in one call") {
			t.Errorf("call %d: %q does not say why the tool was struck out", i, so)
		}
	}
	if got := h.eval(m, `runs`); got != "3" {
		t.Errorf("execute ran %s times; want 3 (refused after the strike-out)", got)
	}
}
