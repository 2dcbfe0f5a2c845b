// expect: ok
// check: probe -> "refused":["tools","timer"]
// A mount that catches the refusal to stand in for a concrete Go service and tries the
// next one gets the same teaching error each time; the runtime's tools and timer stay
// the Go ones (the harness checks the runtime state afterwards).
return { name: 'retry', apply(ctx) {
  const refused = []
  for (const key of ['tools', 'timer']) {
    try { ctx.provide(key, { register() { return 'ESCAPED' }, setTimeout() { return 'ESCAPED' } }) }
    catch (e) { if (e instanceof TypeError && e.message.includes('cannot stand in for it')) refused.push(key) }
  }
  ctx.tools.register({ name: 'probe', description: 'reports the refusals', parameters: { type: 'object' }, execute: () => ({ refused }) })
} }
