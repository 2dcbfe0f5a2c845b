// expect: never reaches a property or an item
// check: probe -> not registered
return { name: 'a', apply(ctx) { ctx.tools.register({ name: 'probe', description: 'd', parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', $ref: '#/definitions/x', definitions: { x: { allOf: [{ $ref: '#/definitions/y' }] }, y: { anyOf: [{ type: 'string' }, { $ref: '#/definitions/x' }] } } }, execute: () => 1 }) } }
