// expect: ctx.once: more than 1000 event listeners at once (Limits.MaxListeners)
// check: once listeners count against Limits.MaxListeners until they fire or are removed
return { name: 'a', apply(ctx) { for (let i = 0; i < 1500; i++) ctx.once('tools/change', () => {}) } }
