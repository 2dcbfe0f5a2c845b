// expect: ok
// check: canary unchanged after defineProperty/assign/freeze attempts
return { name: 'a', inject: ['canarysvc'], apply(ctx) {
  const s = ctx.canarysvc
  for (const f of [() => Object.defineProperty(s.config, 'mode', { value: 'pwned' }), () => Object.assign(s.config, { mode: 'pwned' }), () => Object.setPrototypeOf(s, null), () => Object.freeze(s.config), () => Object.defineProperty(s, 'extra', { value: 1 })]) { try { f() } catch (e) {} }
} }
