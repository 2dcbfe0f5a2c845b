// expect: ok
// check: arguments.callee.caller does not reach the host
return { name: 'a', apply(ctx) {
  let leaked = false
  ctx.on('tools/change', function () { try { const c = arguments.callee.caller; if (c && c !== null) leaked = true } catch (e) {} })
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => { if (leaked) throw new Error('ESCAPED'); return { leaked } } }) } }
