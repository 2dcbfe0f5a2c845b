// expect: the value converts to more than 1048576 elements (an array of length 4294967295)
// check: nothing mounted
// A sparse inject list: refused by its length before it is read.
const sparse = []; sparse.length = 2 ** 32 - 1
return { name: 'a', inject: sparse, apply(ctx) {} }
