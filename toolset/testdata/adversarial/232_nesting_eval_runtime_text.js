// expect: Limits.MaxNesting
// check: text nested millions deep, built at run time and handed to eval, is measured before goja parses it (a fatal stack overflow before)
eval('['.repeat(1.5e6) + ']'.repeat(1.5e6))
return (ctx) => {}
