// expect: there is no event
// check: uncatalogued events cannot be subscribed or emitted
return { name: 'a', apply(ctx) { ctx.on('internal/dispose', () => {}); ctx.emit('dispose', 'dyn-1') } }
