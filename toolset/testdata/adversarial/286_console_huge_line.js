// expect: ok
// check: probe -> "done"
// One line of 1 MiB, and one of 200 large objects: each is cut at Limits.MaxLogLine before it is copied whole.
return { name: 'a', apply(ctx) {
  console.log('y'.repeat(1 << 20))
  const big = { a: 'z'.repeat(100000) }
  console.log(...Array(200).fill(big))
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => 'done' })
} }
