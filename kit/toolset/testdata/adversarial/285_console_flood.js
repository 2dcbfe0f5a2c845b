// expect: ok
// check: probe -> "done"
// Unbounded, this writes 512 MiB to the host's log; the console budget (Limits.MaxLogBytes) drops what is past 16 MiB without rendering it.
return { name: 'a', apply(ctx) {
  const s = 'x'.repeat(1 << 16)
  for (let i = 0; i < 8192; i++) console.log(s, i)
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => 'done' })
} }
