// expect: ok
// check: new Function sees no Node or Go globals
const names = ['process', 'Buffer', 'module', 'exports', '__dirname', 'global', 'Deno', 'Bun', 'os', 'go', 'runtime', 'canaryMarker']
const found = names.filter((n) => new Function('try { return typeof ' + n + ' } catch (e) { return "undefined" }')() !== 'undefined')
if (found.length) throw new Error('ESCAPED ' + found.join())
return (ctx) => {}
