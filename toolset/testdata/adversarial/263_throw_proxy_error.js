// expect: [object Proxy]
// check: no trap of a thrown Proxy runs while it is described
const loop = () => { for (;;) {} }
throw new Proxy(new Error('p'), { get: loop, getPrototypeOf: loop, getOwnPropertyDescriptor: loop, ownKeys: loop, has: loop })
