// expect: [object Object]
// check: Symbol.toPrimitive and valueOf of a thrown object are not called
throw { [Symbol.toPrimitive]() { for (;;) {} }, valueOf() { for (;;) {} }, toString() { for (;;) {} } }
