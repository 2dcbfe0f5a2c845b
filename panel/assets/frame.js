// The client runner of one client half (docs/dynamic-plugins.md, "Client halves in
// frames"). This document is a sandboxed frame with an opaque origin: it has no cookie, no
// token, no network (its CSP says connect-src 'none') and cannot touch the panel's DOM. It
// talks only to its parent, the panel page, which routes host.call to this run's handlers
// with the run capability it keeps to itself.
(function () {
  'use strict';
  var parentWin = window.parent;
  var h = React.createElement;
  var nextCall = 1;
  var calls = new Map();
  var current = null; // the loaded run: {pluginId, disposers, active}

  function send(msg) {
    msg.cordis = 1;
    parentWin.postMessage(msg, '*'); // nothing secret goes up; the page checks the source
  }

  function describe(v) {
    if (v instanceof Error) return v.message;
    if (typeof v === 'string') return v;
    try { return JSON.stringify(v); } catch (e) { return String(v); }
  }

  function errorOf(e) {
    if (e instanceof Error) return { message: e.message || String(e), stack: e.stack || '' };
    return { message: 'threw a non-Error value: ' + describe(e), stack: '' };
  }

  function makeConsole(tag) {
    var out = {};
    ['log', 'info', 'warn', 'error', 'debug'].forEach(function (level) {
      out[level] = function () {
        var args = Array.prototype.slice.call(arguments);
        try { window.console[level].apply(window.console, ['[cordis:' + tag + ']'].concat(args)); } catch (e) { /* no console */ }
        send({ type: 'console', level: level, text: args.map(describe).join(' ').slice(0, 500) });
      };
    });
    return Object.freeze(out);
  }

  function makeStyles(pluginId, disposers) {
    return Object.freeze({
      insert: function (css) {
        if (typeof css !== 'string') throw new TypeError('styles.insert(css) takes a string of CSS, not ' + typeof css);
        var el = document.createElement('style');
        el.setAttribute('data-dyn', pluginId);
        el.textContent = css;
        document.head.appendChild(el);
        var done = false;
        var dispose = function () { if (!done) { done = true; el.remove(); } };
        disposers.push(dispose);
        return dispose;
      }
    });
  }

  function makeHost() {
    return Object.freeze({
      call: function (method, args) {
        if (typeof method !== 'string' || method === '') {
          return Promise.reject(new TypeError('host.call(method, args): method must be the name of a handler the host half declared with harness.handle(method, fn)'));
        }
        var payload = null;
        try { payload = args === undefined ? null : JSON.parse(JSON.stringify(args)); } catch (e) {
          return Promise.reject(new TypeError('host.call(' + JSON.stringify(method) + '): args must be JSON data: ' + e.message));
        }
        var id = nextCall++;
        return new Promise(function (resolve, reject) {
          calls.set(id, { resolve: resolve, reject: reject });
          send({ type: 'call', id: id, method: method, args: payload });
        });
      }
    });
  }

  // The teaching traps: what a client half may reach for and what to use instead.
  var TRAPS = {
    setTimeout: "declare inject: ['timer'] and use ctx.setTimeout(fn, ms); it is cleared when the plugin unloads",
    setInterval: "declare inject: ['timer'] and use ctx.setInterval(fn, ms); it is cleared when the plugin unloads",
    clearTimeout: 'call the disposer that ctx.setTimeout returned',
    clearInterval: 'call the disposer that ctx.setInterval returned',
    fetch: 'a client half has no network; declare a handler in the host half with harness.handle(method, fn) and call it with host.call(method, args)',
    require: 'a client half has no modules; React, styles, host and console are its parameters'
  };
  function trap(name) {
    return function () { throw new Error(name + ' is not available in a client half: ' + TRAPS[name]); };
  }
  var harnessTrap = new Proxy({}, {
    get: function () {
      throw new Error('harness belongs to the host half (code.host): declare handlers there with harness.handle(method, fn) and call them from the client half with host.call(method, args)');
    }
  });

  var SLOTS = []; // the slot names of the page, sent with the code (its Slots provider lists them)
  var SERVICES = ['timer'];

  // guardFail reports a guard rejection after activation (during apply it is the load's
  // failure instead) and throws it.
  function guardFail(msg) {
    var e = new Error(msg);
    if (current && current.active) send({ type: 'guard-error', message: e.message, stack: e.stack || '' });
    throw e;
  }

  // The slot is this frame's document: the newest registration renders.
  function makeSlots(run) {
    var entries = [];
    function render() {
      var top = entries[entries.length - 1];
      run.root.render(top ? h(Boundary, { slot: top.name, key: top.seq }, h(top.component, { pluginId: run.pluginId, packageId: run.packageId, pluginRunId: run.pluginRunId })) : null);
    }
    var seq = 0;
    // occupied tells the page which slots this run occupies (its Slots provider reports them).
    function occupied() {
      send({ type: 'slots', names: entries.map(function (x) { return x.name; }).filter(function (n, i, all) { return all.indexOf(n) === i; }) });
    }
    return Object.freeze({
      register: function (opts) {
        if (!opts || typeof opts !== 'object' || typeof opts.name !== 'string') guardFail('ctx.slots.register(options) needs an object with a string name, one of ' + SLOTS.join(', ') + ", and a component: ctx.slots.register({ name: 'cordis.card', component: MyView })");
        if (SLOTS.indexOf(opts.name) < 0) guardFail('there is no slot ' + JSON.stringify(opts.name) + ' in the Cordis panel; the slots are ' + SLOTS.join(', '));
        if (opts.name === 'tool.view.cordis' && opts.key !== undefined && opts.key !== 'self') guardFail("slot tool.view.cordis only accepts key: 'self'");
        if (typeof opts.component !== 'function') guardFail('ctx.slots.register: component must be a React component (a function of props)');
        var e = { name: opts.name, component: opts.component, seq: ++seq };
        entries.push(e);
        render();
        occupied();
        var gone = false;
        var dispose = function () {
          if (gone) return;
          gone = true;
          entries = entries.filter(function (x) { return x !== e; });
          render();
          occupied();
        };
        run.disposers.push(dispose);
        return dispose;
      }
    });
  }

  class Boundary extends React.Component {
    constructor(props) { super(props); this.state = { error: null }; }
    static getDerivedStateFromError(error) { return { error: error }; }
    componentDidCatch(error) {
      var e = errorOf(error);
      var msg = 'your entry in slot ' + this.props.slot + ' crashed while React rendered it: ' + e.message;
      Object.keys(TRAPS).forEach(function (name) {
        if (e.message.indexOf(name) >= 0 && e.message.indexOf(TRAPS[name]) < 0) msg += ' (' + name + ': ' + TRAPS[name] + ')';
      });
      send({ type: 'render-error', slot: this.props.slot, message: msg, stack: e.stack, abdicated: true });
    }
    render() {
      if (this.state.error) return h('p', { className: 'cordis-crash' }, 'This plugin\u2019s view crashed: ' + errorOf(this.state.error).message);
      return this.props.children;
    }
  }

  function makeCtx(run, inject) {
    var has = function (k) { return inject.indexOf(k) >= 0; };
    function timer(kind) {
      return function (fn, ms) {
        if (!has('timer')) guardFail('ctx.' + kind + " needs the timer service: declare inject: ['timer'] in the plugin object");
        if (typeof fn !== 'function') guardFail('ctx.' + kind + '(fn, ms): fn must be a function');
        var id = (kind === 'setTimeout' ? window.setTimeout : window.setInterval)(function () {
          try { fn(); } catch (e) { var x = errorOf(e); send({ type: 'guard-error', message: 'a ' + kind + ' callback threw: ' + x.message, stack: x.stack }); }
        }, Number(ms) || 0);
        var dispose = function () { (kind === 'setTimeout' ? window.clearTimeout : window.clearInterval)(id); };
        run.disposers.push(dispose);
        return dispose;
      };
    }
    return Object.freeze({
      pluginId: run.pluginId,
      slots: makeSlots(run),
      setTimeout: timer('setTimeout'),
      setInterval: timer('setInterval'),
      effect: function (fn) {
        if (typeof fn !== 'function') guardFail('ctx.effect(fn): fn must be a function that may return a disposer');
        var d = fn();
        if (typeof d === 'function') run.disposers.push(d);
        return function () { if (typeof d === 'function') d(); };
      },
      get: function (key) { return undefined; }
    });
  }

  var PARAMS = ['React', 'console', 'styles', 'host', 'harness', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'fetch', 'require', 'process', 'Buffer'];
  var AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;

  function teardown(run) {
    for (var i = run.disposers.length - 1; i >= 0; i--) { try { run.disposers[i](); } catch (e) { /* keep tearing down */ } }
    run.disposers = [];
    try { run.root.unmount(); } catch (e) { /* already gone */ }
  }

  function failed(run, stage, e) {
    teardown(run);
    var x = errorOf(e);
    send({ type: 'failed', stage: stage, message: x.message, stack: x.stack });
  }

  async function load(msg) {
    if (current) return send({ type: 'failed', stage: 'evaluate', message: 'this frame already runs a client half; the panel gives every run its own frame', stack: '' });
    var run = { pluginId: msg.pluginId, packageId: msg.packageId, pluginRunId: msg.pluginRunId, disposers: [], active: false,
      root: ReactDOM.createRoot(document.getElementById('cordis-root')) };
    current = run;
    SLOTS = Array.isArray(msg.slots) ? msg.slots.map(String) : [];
    var fn, plugin;
    try {
      fn = new AsyncFunction(PARAMS.join(','), msg.code);
    } catch (e) { return failed(run, 'evaluate', e); }
    try {
      plugin = await fn(React, makeConsole(msg.pluginId), makeStyles(msg.pluginId, run.disposers), makeHost(), harnessTrap,
        trap('setTimeout'), trap('setInterval'), trap('clearTimeout'), trap('clearInterval'), trap('fetch'), trap('require'), undefined, undefined);
    } catch (e) { return failed(run, 'evaluate', e); }
    var apply, inject = [];
    if (typeof plugin === 'function') {
      apply = plugin;
    } else if (plugin && typeof plugin === 'object' && typeof plugin.apply === 'function') {
      apply = plugin.apply.bind(plugin);
      inject = plugin.inject === undefined ? [] : plugin.inject;
      if (!Array.isArray(inject) || inject.some(function (k) { return typeof k !== 'string'; })) {
        return failed(run, 'module-import', new Error('inject must be an array of service names, such as inject: [\'timer\']'));
      }
    } else {
      var got = plugin === undefined ? 'undefined — did you forget `return`?' : typeof plugin;
      return failed(run, 'module-import', new Error('the client half must `return` a plugin: a function (ctx) => { … } or an object { name, inject, apply(ctx) { … } }; it returned ' + got));
    }
    var waitingFor = inject.filter(function (k) { return SERVICES.indexOf(k) < 0; });
    if (waitingFor.length === 0) {
      try { await apply(makeCtx(run, inject)); } catch (e) { return failed(run, 'activate', e); }
    }
    run.active = true;
    send({ type: 'loaded', waitingFor: waitingFor });
  }

  window.addEventListener('message', function (ev) {
    if (ev.source !== parentWin) return; // another frame cannot drive this one
    var m = ev.data;
    if (!m || m.cordis !== 1) return;
    if (m.type === 'load') { load(m); return; }
    if (m.type === 'reply') {
      var c = calls.get(m.id);
      if (!c) return;
      calls.delete(m.id);
      if (m.ok) { c.resolve(m.value); return; }
      var err = new Error(m.error && m.error.message || 'host.call failed');
      err.code = m.error && m.error.code;
      c.reject(err);
    }
  });

  if (typeof ResizeObserver === 'function') {
    // The content's own height: the document's scrollHeight is never less than the frame,
    // so a frame that grew once would never shrink again.
    var root = document.getElementById('cordis-root');
    new ResizeObserver(function () { send({ type: 'size', height: Math.ceil(root.getBoundingClientRect().height) }); }).observe(root);
  }
  send({ type: 'ready' });
})();
