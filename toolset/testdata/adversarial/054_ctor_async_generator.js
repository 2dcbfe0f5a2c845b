// expect: ok
// check: AsyncFunction/GeneratorFunction constructors are realm-local
const AF = Object.getPrototypeOf(async function () {}).constructor
const GF = Object.getPrototypeOf(function* () {}).constructor
const g = await AF('return this')()
const h = GF('yield this')().next().value
if (g !== globalThis || h !== globalThis || globalThis.canaryMarker !== undefined) throw new Error('ESCAPED')
return (ctx) => {}
