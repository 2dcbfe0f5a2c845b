// expect: [object Error]
// check: setters on Object.prototype under a property descriptor's field names would run when the engine builds a descriptor: the value is then described by its kind only
const ks = ['value', 'writable', 'get', 'set', 'enumerable', 'configurable']
for (let i = 0; i < ks.length; i++) Object.defineProperty(Object.prototype, ks[i], Object.assign(Object.create(null), { set(v) { for (;;) {} }, configurable: true }))
throw new Error('s')
