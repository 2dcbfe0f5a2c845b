// expect: TypeError
// check: an Error's message getter is not called: the description is its name alone
throw Object.defineProperty(new TypeError('hidden'), 'message', { get() { for (;;) {} } })
