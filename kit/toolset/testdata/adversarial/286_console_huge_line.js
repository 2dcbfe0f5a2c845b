// expect: ok
// check: probe -> "done"
// One line of 32 MiB, and one of a thousand large objects: each is cut at Limits.MaxLogLine before it is copied whole.
return { name: 'a', apply(ctx) {
  console.log('y'.repeat(1 << 25))
  const big = { a: 'z'.repeat(100000) }
  console.log(...Array(1000).fill(big))
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => 'done' })
} }
