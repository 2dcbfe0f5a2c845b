// expect: [object Object]: own
// check: getters on the prototype chain of a thrown plain object are not called; its own data message is shown
const proto = Object.create(null, { constructor: { get() { for (;;) {} } }, name: { get() { for (;;) {} } } })
return { name: 'a', apply(ctx) { throw Object.create(proto, { message: { value: 'own' } }) } }
