// expect: SyntaxError: own message
// check: getters on Error.prototype (name, message, stack, toString) are never called
for (const k of ['name', 'message', 'stack', 'toString', 'constructor']) Object.defineProperty(Error.prototype, k, { get() { for (;;) {} } })
throw new SyntaxError('own message')
