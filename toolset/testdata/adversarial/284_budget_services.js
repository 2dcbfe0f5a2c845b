// expect: more than 256 provided services (Limits.MaxServices)
// check: a mount may not provide more than Limits.MaxServices services; all of them are removed with the failed mount
return { name: 'a', apply(ctx) { for (let i = 0; i < 20000; i++) ctx.provide('many-' + i, { i }) } }
