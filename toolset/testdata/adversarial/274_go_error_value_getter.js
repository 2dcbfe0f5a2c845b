// expect: [object
// check: an object inheriting a Go error's prototype, with a value getter: describing it (and unwrapping the error) reads no getter
return { name: 'a', apply(ctx) {
	let p
	try { ctx.provide('canarysvc', 1) } catch (e) { p = Object.getPrototypeOf(e) }
	throw Object.create(p, { value: { get() { for (;;) {} } }, message: { get() { for (;;) {} } } })
} }
