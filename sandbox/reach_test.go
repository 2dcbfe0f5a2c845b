package sandbox

import (
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/internal/childtest"
	"github.com/cordiskit/cordiskit/sandbox/internal/jslex"
)

// TestAsyncGuardOnlyWhenReachable: mount code that can make no async function does not
// build the AsyncFunction guard (the anchors' plugin body among them); code that can,
// does, before its body runs.
func TestAsyncGuardOnlyWhenReachable(t *testing.T) {
	h := newHost(t, nil)
	for _, tt := range []struct {
		code  string
		async bool
	}{
		{`return { name: 'plain', apply(ctx) { ctx.on('tools/change', () => {}) } }`, false},
		{`return { name: 'async', async apply(ctx) {} }`, true},
		{`const n = () => arguments.length; return (ctx) => {}`, true},
		{benchfix.OnEvent(benchfix.PluginBody, "tools/change"), false}, // "async" only in its heading comment
	} {
		m, f := h.mustMount(tt.code)
		if got := m.realm.compilers.async; got != tt.async {
			t.Errorf("%s: AsyncFunction guarded %v, want %v", tt.code, got, tt.async)
		}
		h.unmount(m, f)
	}
}

// TestAsyncConstructorGuardedEveryWay: mount code reaches AsyncFunction only through an
// async function, and whichever it makes or finds — its own wrapper through
// arguments.callee (spelled out or with a \u escape), one made by text handed to eval or
// Function — the constructor it reaches measures its text, refusing deep text with a
// SyntaxError instead of overflowing goja's parser (a fatal error: a child process).
func TestAsyncConstructorGuardedEveryWay(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := newHost(t, &Timeouts{Call: 5 * time.Second})
	deep := `'return ' + '('.repeat(2e6) + '1' + ')'.repeat(2e6)`
	for _, tc := range []struct{ name, src string }{
		{"arguments.callee", `arguments.callee.constructor(` + deep + `)`},
		{"escaped arguments", `\u0061rguments.callee.constructor(` + deep + `)`},
		{"arguments after a line comment ended by U+2028", "// note\u2028arguments.callee.constructor(" + deep + ")"},
		{"eval'd async function", `eval('(as' + 'ync function () {})').constructor(` + deep + `)`},
		{"Function's async arrow", `Function('return as' + 'ync () => 1')().constructor(` + deep + `)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code := "try { " + tc.src + " } catch (e) { return { name: e.name + ': ' + e.message, apply() {} } }\nreturn { name: 'no error', apply() {} }"
			p, err := h.sb.Compile("dyn-1", code)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tc.name, "arguments") && p.reach&jslex.ReachAsync == 0 {
				t.Fatalf("reach %b", p.reach)
			}
			m, f := h.mustMount(code)
			defer h.unmount(m, f)
			if got := m.Name(); !strings.HasPrefix(got, "SyntaxError: ") || !strings.Contains(got, "Limits.MaxNesting") {
				t.Errorf("%s: got %s, want a SyntaxError naming Limits.MaxNesting", tc.src, got)
			}
		})
	}
	h.serving()
}
