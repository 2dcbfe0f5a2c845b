// expect: ok
// check: a sourceMappingURL line does not make the parser read a host file (file:///dev/zero would exhaust memory)
return (ctx) => {}
//# sourceMappingURL=file:///dev/zero
