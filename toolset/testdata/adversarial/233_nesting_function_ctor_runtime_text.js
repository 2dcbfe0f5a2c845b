// expect: Limits.MaxNesting
// check: the Function constructors reached through a function's constructor measure their text too
const AsyncFunction = (async () => {}).constructor
await AsyncFunction('return ' + '!'.repeat(2e6) + '0')()
return (ctx) => {}
