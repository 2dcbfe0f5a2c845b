// expect: SharedArrayBuffer is not defined
// check: no host blocking primitives
const sab = new SharedArrayBuffer(16); Atomics.wait(new Int32Array(sab), 0, 0, 1e9)
return (ctx) => {}
