// expect: RangeError: kept
// check: a stack getter that throws a hostile value is not called; the own message is kept
throw Object.defineProperty(new RangeError('kept'), 'stack', { get() { throw { toString() { throw { toString() { for (;;) {} } } } } } })
