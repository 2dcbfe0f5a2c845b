package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// A storm of unhandled rejections costs the lock holder a count past the budget, not a
// description and a log record each: the tool that made 100,000 of them returns quickly,
// the log holds MaxRejectionReports reports and one summary, and OnError sees the same.
func TestRejectionStorm(t *testing.T) {
	// Making 100,000 Errors took more than 5 s under -race on a loaded machine; no bound is
	// meant to fire here.
	h := newHost(t, &Timeouts{VM: time.Minute, Mount: time.Minute, Call: time.Minute})
	var mu sync.Mutex
	var reported []string
	h.sb.onError = func(mount string, err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, mount+" "+err.Error())
	}
	m, f := h.mustMount(`return { name: 'storm', apply(ctx) {
		ctx.tools.register({ name: 'storm', description: 'd', execute: ({ n }) => {
			const start = Date.now()
			for (let i = 0; i < n; i++) Promise.reject(new Error('rejection ' + i))
			return [start, Date.now()]
		} })
	} }`)
	const n = 100_000
	out, err := h.call("storm", fmt.Sprintf(`{"n": %d}`, n))
	returned := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	var js [2]int64
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("storm returned %s: %v", out, err)
	}
	// What the entry did after the JavaScript returned, flushing the rejections, against what
	// the JavaScript did to make them (a ratio, so a loaded machine slows both): past the
	// report budget a rejection is counted, not described, so the flush is the cheaper part.
	// The clocks agree to a millisecond; 10 ms of slack covers that and a scheduling hiccup.
	made, flushed := time.Duration(js[1]-js[0])*time.Millisecond, returned.Sub(time.UnixMilli(js[1]))
	if flushed > made+10*time.Millisecond {
		t.Errorf("reporting %d rejections held the call %v after its JavaScript returned, longer than making them took (%v)", n, flushed, made)
	}
	log := h.log.String()
	budget := h.sb.limits.MaxRejectionReports
	if got := strings.Count(log, "unhandled promise rejection\""); got != budget {
		t.Errorf("%d rejections logged, want the budget, %d", got, budget)
	}
	summary := fmt.Sprintf("%d more unhandled promise rejections were not reported", n-budget)
	if !strings.Contains(log, summary) || !strings.Contains(log, "Limits.MaxRejectionReports") {
		t.Errorf("the log does not summarize the rest (%q):\n%.2000s", summary, log[strings.LastIndex(log, "rejection 9")-200:])
	}
	if !strings.Contains(log, "rejection 0") || strings.Contains(log, fmt.Sprintf("rejection %d\"", budget)) {
		t.Errorf("want the first %d rejections reported, and no later one", budget)
	}
	mu.Lock()
	if len(reported) != budget+1 || !strings.HasPrefix(reported[0], "dyn-1 dyn-1: Error: rejection 0") || !strings.Contains(reported[budget], summary) {
		t.Errorf("OnError saw %d errors, want %d reports and the summary; first %q, last %q", len(reported), budget+1, reported[0], reported[len(reported)-1])
	}
	mu.Unlock()

	// More rejections past the budget: one summary line when their count has doubled,
	// none before, and the rest when the mount closes.
	before := strings.Count(h.log.String(), "were not reported")
	if _, err := h.call("storm", `{"n": 10}`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(h.log.String(), "were not reported"); got != before {
		t.Errorf("10 more rejections added a summary line (%d → %d)", before, got)
	}
	h.unmount(m, f)
	if !strings.Contains(h.log.String(), "10 more unhandled promise rejections were not reported (99910 in all)") {
		t.Errorf("closing the mount did not summarize the last 10:\n%s", tail(h.log.String(), 3))
	}
}

// Rejected promises that get their handler later are not reported.
func TestRejectionsHandledLater(t *testing.T) {
	h := newHost(t, nil)
	m, f := h.mustMount(`return { name: 'late', apply(ctx) {
		ctx.tools.register({ name: 'late', description: 'd', execute: async ({ n }) => {
			const ps = []
			for (let i = 0; i < n; i++) ps.push(Promise.reject(i))
			await null
			for (let i = 0; i < n; i++) ps[i].catch(() => {})
			return 'ok'
		} })
	} }`)
	defer h.unmount(m, f)
	if out, err := h.call("late", `{"n": 1000}`); err != nil || out != `"ok"` {
		t.Fatalf("%s %v", out, err)
	}
	if strings.Contains(h.log.String(), "unhandled promise rejection") {
		t.Errorf("a handled rejection was reported:\n%s", tail(h.log.String(), 3))
	}
}

// The rejection tracker runs for every rejection and every handler added to a rejected
// promise, under the lock: handling 100,000 pending rejections in the order they were
// made is linear, not a scan of all pending ones per handler.
func TestRejectionTrackingIsLinear(t *testing.T) {
	l, _ := newTestSandbox(t, nil)
	r := testRealm(t, l, "dyn-1")
	const n = 100_000
	ps := make([]*goja.Promise, n)
	for i := range ps {
		ps[i], _, _ = r.rt.NewPromise()
	}
	start := time.Now()
	for _, p := range ps {
		r.trackRejection(p, goja.PromiseRejectionReject)
	}
	for _, p := range ps {
		r.trackRejection(p, goja.PromiseRejectionHandle)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("tracking %d rejections and their handlers took %v", n, d)
	}
	if len(r.rejectedAt) != 0 {
		t.Errorf("%d rejections still tracked after every one was handled", len(r.rejectedAt))
	}
	for _, p := range r.rejected {
		if p != nil {
			t.Fatal("a handled rejection is still pending a report")
		}
	}
}
