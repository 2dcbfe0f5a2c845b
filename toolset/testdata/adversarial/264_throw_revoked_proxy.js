// expect: [object Proxy]
// check: a revoked Proxy (asking its class throws) is described by its kind
const p = Proxy.revocable({}, {}); p.revoke(); throw p.proxy
