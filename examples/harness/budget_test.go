package main

import (
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/internal/childtest"
)

// amplifier calls exec.run with values small in the JavaScript heap and huge once copied
// into Go: 200,000 references to one 2 MiB string (not ASCII, so each would be a fresh Go
// copy: 400 GB), as the arguments of a command, and a sparse array of length 2^32−1. The
// strings of one argument share the 8 MiB of MaxBytes: the program name, three copies of
// the string and no more.
const amplifier = `return { name: 'amplifier', inject: ['exec'], apply(ctx) {
	const big = 'é'.repeat(1 << 20)
	const sparse = []
	sparse.length = 2 ** 32 - 1
	const tries = {
		refs: () => ctx.exec.run({ program: 'true', args: Array(200000).fill(big) }),
		sparse: () => ctx.exec.run({ program: 'true', args: sparse }),
		stdin: () => ctx.exec.run({ program: 'true', args: [big, big], stdin: big + big }),
	}
	ctx.tools.register({ name: 'amplify', description: 'tries', parameters: { type: 'object' }, execute: async () => {
		const out = {}
		for (const [k, f] of Object.entries(tries)) {
			try { await f(); out[k] = 'ran' } catch (e) { out[k] = e.message }
		}
		return out
	} })
} }`

// TestServiceArgumentBudget passes the amplifier's values to the exec service: each call
// fails at once with the budget error naming the path, and the runtime keeps serving.
// Before the budget the first killed the process, so the test runs in a child process.
func TestServiceArgumentBudget(t *testing.T) {
	if childtest.Parent(t) {
		return
	}
	h := bootTest(t)
	id := h.mustMount(t, amplifier)
	// Each refusal names the place where the conversion passed its bound (cmd.args[3] of
	// many, the sparse array's length before its first element): the budget stops the copy
	// there rather than judging it after.
	out, err := h.callTool(t, "amplify", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	teach := "; shared references count each time they are copied (the bound is Limits.MaxBytes); pass less, or page it"
	for _, want := range []string{
		`"refs":"exec.run: parameter cmd.args[3]: the value converts to more than 8388608 bytes of strings` + teach,
		`"sparse":"exec.run: parameter cmd.args: the value converts to more than 1048576 elements (an array of length 4294967295)`,
		`"stdin":"exec.run: parameter cmd.stdin: the value converts to more than 8388608 bytes of strings` + teach,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("amplify = %s\nwant %s", out, want)
		}
	}
	if _, err := h.callTool(t, "cordis_unmount", map[string]string{"id": id}); err != nil {
		t.Fatalf("cordis_unmount: %v", err)
	}
}
