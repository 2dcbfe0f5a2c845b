// expect: ok
// check: probe -> "quick":true
// A storm of unhandled rejections (one Error with a deep stack, rejected 20,000 times):
// past Limits.MaxRejectionReports they are only counted, so reporting them does not hold
// the lock after the JavaScript returned: the timer that settles the result runs within half a second (the Go test TestRejectionStorm measures 100,000).
return { name: 'a', inject: ['timer'], apply(ctx) { ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' },
	execute: () => {
		const deep = (n) => n === 0 ? new Error('storm') : deep(n - 1)
		const e = deep(150)
		for (let i = 0; i < 20000; i++) Promise.reject(e)
		const t0 = Date.now()
		return new Promise((resolve) => ctx.setTimeout(() => resolve({ quick: Date.now() - t0 < 500 }), 1))
	} }) } }
