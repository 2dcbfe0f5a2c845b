package sandbox

import (
	"strings"
	"testing"
	"time"
)

// Console output is capped per line (Limits.MaxLogLine) and per mount in total
// (Limits.MaxLogBytes): past the total one note is logged and the rest is dropped.
func TestConsoleBudget(t *testing.T) {
	// A megabyte line is cut to 100 bytes after goja builds it; under -race that alone can
	// pass the default test host's 250 ms, so this test, which is about budgets and not
	// time, gives its calls 5 s.
	h := newHostLimits(t, &Timeouts{VM: 5 * time.Second, Mount: 5 * time.Second, Call: 5 * time.Second}, &Limits{MaxLogBytes: 4000, MaxLogLine: 100})
	m, f := h.mustMount(`return { name: 'chatty', apply(ctx) {} }`)
	defer h.unmount(m, f)

	out := h.eval(m, `console.log('a'.repeat(1 << 20)); console.log('é'.repeat(500), { big: 'b'.repeat(500) })`)
	log := h.log.String()
	if strings.HasPrefix(out, "error:") {
		t.Fatalf("logging the long lines failed: %s", out)
	}
	if n := strings.Count(log, "[console line cut at 100 bytes (Limits.MaxLogLine)]"); n != 2 {
		t.Errorf("%d lines marked as cut, want 2:\n%.2000s", n, log)
	}
	if strings.Contains(log, strings.Repeat("a", 101)) {
		t.Error("a line longer than Limits.MaxLogLine was logged")
	}

	h.eval(m, `for (let i = 0; i < 100000; i++) console.log('line ' + i + ' ' + 'x'.repeat(40))`)
	log = h.log.String()
	if n := strings.Count(log, "console output truncated: the mount wrote more than 4000 bytes (Limits.MaxLogBytes)"); n != 1 {
		t.Errorf("%d truncation notes, want 1", n)
	}
	if n := strings.Count(log, "msg=\"line "); n < 50 || n > 100 {
		t.Errorf("%d lines logged, want the ones that fit in 4000 bytes (about 80)", n)
	}
	h.eval(m, `console.error('after the budget')`)
	if strings.Contains(h.log.String(), "after the budget") {
		t.Error("console output after the budget was spent was logged")
	}
	// Another mount has its own budget.
	m2, f2 := h.mustMount(`return { name: 'quiet', apply(ctx) { console.log('second mount speaks') } }`)
	defer h.unmount(m2, f2)
	if !strings.Contains(h.log.String(), "second mount speaks") {
		t.Error("the second mount's console output was dropped")
	}
}
