// expect: ok
// check: eval and new Function do not read source maps either (file:///dev/zero would exhaust memory)
eval('1\n//# sourceMappingURL=file:///dev/zero')
new Function('return 1\n//# sourceMappingURL=file:///dev/zero')()
return (ctx) => {}
