// expect: too large for how deeply it nests
// check: nested default parameters cost goja's parser exponential time (30 levels: hours) before any bound; the work bound refuses them
const f = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = (a = 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1) => 1
return (ctx) => {}
