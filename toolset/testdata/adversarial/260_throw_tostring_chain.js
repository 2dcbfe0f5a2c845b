// expect: [object Object]
// check: the thrown value is described without calling its toString (whose throw would throw again)
throw { toString() { throw { toString() { throw { toString() { for (;;) {} } } } } } }
