// expect: ok
// check: probe -> "assign":"threw
return { name: 'a', inject: ['canarysvc'], apply(ctx) {
  const out = {}
  const tries = {
    viewProto: () => { const p = ctx.canarysvc.config.__proto__; return typeof p + ':' + (p === Object.prototype) },
    viewProtoCtor: () => typeof ctx.canarysvc.config.__proto__.constructor,
    viewCtor: () => { const C = ctx.canarysvc.config.constructor; return typeof C + ':' + (C === Object) },
    fnCtor: () => { const F = ctx.canarysvc.echo.constructor; return typeof F + ':' + (F === Function) },
    assign: () => { ctx.canarysvc.config.constructor.assign(ctx.canarysvc.config, { mode: 'pwned' }); return 'ran' },
    defGetter: () => { ctx.canarysvc.config.__proto__.__defineGetter__('polluted', () => 'ESC'); return 'ran' },
    defProp: () => { const P = ctx.canarysvc.config.__proto__; P.constructor.defineProperty(P, 'polluted2', { value: 1 }); return 'ran' },
    setProto: () => { ctx.canarysvc.config.constructor.setPrototypeOf(ctx.canarysvc.config, null); return 'ran' },
    fnCall: () => { const F = ctx.canarysvc.config.constructor; return typeof F.assign + typeof F.getPrototypeOf },
    g1: () => { const g = ctx.canarysvc.config.constructor.constructor('return this')(); return String(g.canaryMarker) },
    g2: () => { const g = ctx.canarysvc.config.__proto__.constructor.constructor('return this')(); return String(g.canaryMarker) },
    g3: () => { const g = ctx.canarysvc.echo.constructor('return this')(); return String(g.canaryMarker) },
    g4: () => { const g = ctx.canarysvc.nested.constructor.constructor('return globalThis.canaryMarker')(); return String(g) },
    g5: () => { const f = ctx.canarysvc.echo; return String(f.call.constructor('return globalThis.canaryMarker')()) },
  }
  for (const [k, f] of Object.entries(tries)) { try { out[k] = f() } catch (e) { out[k] = 'threw ' + String(e).slice(0, 120) } }
  ctx.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, execute: () => out })
} }

