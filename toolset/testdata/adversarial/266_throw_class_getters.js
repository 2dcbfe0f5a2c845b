// expect: [object Hostile]
// check: a class instance is named by its constructor, read without its getters
throw new (class Hostile { get message() { for (;;) {} } get name() { for (;;) {} } toString() { for (;;) {} } })()
