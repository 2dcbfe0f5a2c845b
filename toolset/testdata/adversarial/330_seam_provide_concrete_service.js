// expect: "timer" is a Go service declared in the catalog; a JavaScript value cannot stand in for it
// check: a concrete Go service (not an interface seam) cannot be replaced by a JavaScript object: refused before the object is read (a trap that ran would make the mount's error say ESCAPED), and the mount leaves nothing behind
return { name: 'fake-timer', apply(ctx) {
  const hostile = new Proxy({}, { get() { throw new Error('ESCAPED: the refused object was read') } })
  ctx.provide('timer', hostile)
} }
