// expect: ok
// check: probe -> "ok":true
return { name: 'a', apply(ctx) {
  const t = ctx.tools
  const entry = t.get('canary_probe')
  const bad = ['execute', 'call', 'registry', 'unregister', 'dispose', 'root'].filter((k) => { try { return t[k] !== undefined } catch (e) { return false } })
  const ok = bad.length === 0 && entry && entry.execute === undefined && Object.keys(entry).sort().join() !== ''
  if (!ok) throw new Error('ESCAPED ' + bad.join())
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => ({ ok }) }) } }
