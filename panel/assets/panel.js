// The Cordis panel (docs/dynamic-plugins.md, "The panel's readings and cards"): what the
// model defined, what runs, and what waits for the person. Plain JavaScript with
// React.createElement, no build step. Client halves run in sandboxed frames (frames
// below); this page keeps the run capabilities and calls the verbs for them.
(function () {
  'use strict';
  var h = React.createElement;
  var meta = function (n) { var el = document.querySelector('meta[name="' + n + '"]'); return el ? el.content : ''; };
  var BASE = meta('cordis-base') || '/';
  var PENDING = ['awaiting-approval', 'starting-host', 'client-pending'];
  // A fallback only: every change the page shows arrives as an event (a define as
  // cordis/definition-changed); the read catches what a lost connection hid.
  var POLL_MS = 30000;

  // A page opened with a session's token shows that session only (the server sends
  // nothing else); the operator's page shows every session and groups the one named by
  // #session=<id> (or the runtime's default) first.
  var SCOPED = meta('cordis-scope') === 'session';
  function currentSession() {
    if (SCOPED) return meta('cordis-session');
    var m = /(?:^#|&)session=([^&]*)/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : meta('cordis-session');
  }

  // ---- verbs -------------------------------------------------------------------------

  function rpc(verb, args) {
    return fetch(BASE + 'rpc/' + verb, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(args || {}) })
      .catch(function (e) { throw new Error('the panel could not reach the runtime (' + e.message + '); is it still running?'); })
      .then(function (res) {
        return res.json().catch(function () { throw new Error(verb + ' answered HTTP ' + res.status + ' without JSON'); });
      })
      .then(function (body) {
        if (body.ok) return body.value;
        var e = new Error(body.error.message);
        e.code = body.error.code;
        throw e;
      });
  }

  // ---- state -------------------------------------------------------------------------

  var state = {
    rows: [], removed: new Set(), read: false, error: '',
    bound: { plugins: 0, omitted: 0 }, // the last inventory's count, and the Plugins it left out
    requests: new Map(),   // requestId → cordis/request-run payload (with its ticket)
    activity: new Map(),   // pluginId → {phase: 'awaiting-approval' | 'orchestrating', …}
    loaded: new Map(),     // pluginId → {packageId, pluginRunId, waitingFor}
    runError: new Map(),   // pluginId → {reason, message}: this page's last failed run
    actionError: new Map(),// pluginId → message of a failed control
    renderFailure: new Map(),
    picks: new Map(),      // pluginId → the version the person picked
    notes: new Map(),      // pluginId → a calm line: a request this page answered too late
    cards: new Map(),      // "<session> <seq>" → an activity card (what the model did)
    reviews: new Map(),    // requestId → {review} | {error} | {} (reading): what its approval card shows
    epoch: '',             // the server's event-id epoch: another one is another server
    connection: 'connecting'
  };
  var version = 0;
  var listeners = new Set();
  function publish() { version++; listeners.forEach(function (f) { f(); }); }
  function subscribe(f) { listeners.add(f); return function () { listeners.delete(f); }; }

  // The inventory store (docs/dynamic-plugins.md, "What a page does"): one read at a time
  // (a trigger during a read asks for one more after it), reset on reconnect (a stale
  // answer is ignored by generation).
  var inv = { gen: 0, inflight: null, again: false };
  // clock orders what this page learnt against inventory reads: a read that began before
  // a request or a frame arrived says nothing about it.
  var clock = 0;
  function tick() { return ++clock; }
  function refresh() {
    if (inv.inflight) { inv.again = true; return inv.inflight; }
    var g = inv.gen;
    var started = clock;
    inv.inflight = rpc('inventory', {}).then(function (ans) {
      if (g !== inv.gen) return;
      // The answer is bounded: it may leave Plugins out (omitted) and cut rows (compact).
      // Only a whole list says that a Plugin missing from it was removed.
      var whole = !ans.omitted;
      var rows = ans.rows || [];
      var ids = new Set(rows.map(function (r) { return r.pluginId; }));
      var kept = [];
      state.rows.forEach(function (r) {
        if (ids.has(r.pluginId)) return;
        if (whole) state.removed.add(r.pluginId);
        else if (frames.recs.has(r.pluginId) || orchestrations.has(r.pluginId)) kept.push(r); // its view lives in this page
      });
      rows = shareRows(rows.concat(kept));
      state.rows = rows;
      state.bound = { plugins: ans.plugins || 0, omitted: Math.max(0, (ans.omitted || 0) - kept.length) };
      state.read = true;
      state.error = '';
      reconcile(rows, started, whole);
    }, function (e) {
      if (g === inv.gen) state.error = 'The inventory could not be read: ' + (e && e.message ? e.message : 'unknown error');
    }).then(function () {
      if (g !== inv.gen) return;
      inv.inflight = null;
      publish();
      if (inv.again) { inv.again = false; refresh(); }
    });
    return inv.inflight;
  }
  // shareRows keeps the object of every row the read left unchanged (same JSON as the
  // one shown), so a card whose row did not change is not rendered again (Row is memoised).
  var rowJSON = new WeakMap(); // row object → its JSON
  function shareRows(rows) {
    var shown = new Map(state.rows.map(function (r) { return [r.pluginId, r]; }));
    return rows.map(function (r) {
      var s = JSON.stringify(r), old = shown.get(r.pluginId);
      if (old && rowJSON.get(old) === s) return old;
      rowJSON.set(r, s);
      return r;
    });
  }
  function reset() {
    inv.gen++;
    inv.inflight = null;
    inv.again = false;
    state.rows = [];
    state.bound = { plugins: 0, omitted: 0 };
    state.read = false;
    state.requests.clear();
    state.cards.clear();
    state.reviews.clear();
    state.activity.forEach(function (a, id) { if (a.phase === 'awaiting-approval') state.activity.delete(id); });
    publish();
  }
  // forget drops what this page knew of another server's Plugins (a restart): their
  // errors, notes and picks would be misread on new Plugins that happen to reuse an id.
  function forget() {
    [state.runError, state.actionError, state.renderFailure, state.notes, state.picks, state.removed].forEach(function (m) { m.clear(); });
    frames.recs.forEach(function (rec) { frames.unload(rec.pluginId, rec.pluginRunId); });
  }

  // loadActivity reads the activity list; cards that arrived as events since the reset
  // are newer and stay.
  function loadActivity() {
    var g = inv.gen;
    rpc('activity', {}).then(function (list) {
      if (g !== inv.gen) return;
      list.forEach(function (c) { var k = cardKey(c); if (!state.cards.has(k)) state.cards.set(k, c); });
      publish();
    }, function (e) { console.error('[cordis] reading the activity list: ' + e.message); });
  }
  function cardKey(c) { return c.session + ' ' + c.seq; }
  function putCard(c) { state.cards.set(cardKey(c), c); publish(); }

  function retire(id) {
    state.rows = state.rows.filter(function (r) { return r.pluginId !== id; });
    state.removed.add(id);
    publish();
  }

  // reconcile drops requests the host no longer lists (answered elsewhere, cancelled,
  // expired, lost on a restart) and frames whose run is gone. It never starts anything, so
  // a refused answer cannot be re-driven in a loop (docs/dynamic-plugins.md, "What a page
  // does"). From an answer that is not whole it judges only the Plugins it lists: one it
  // left out may still run and ask.
  function reconcile(rows, started, whole) {
    var listed = new Set();
    var byId = new Map();
    rows.forEach(function (r) {
      byId.set(r.pluginId, r);
      var a = r.latestRun;
      if (a && a.approvalRequestId && PENDING.indexOf(a.status) >= 0) listed.add(a.approvalRequestId);
    });
    state.requests.forEach(function (q, id) { if (q.at <= started && !listed.has(id) && (whole || byId.has(q.pluginId))) closeRequest(id); });
    frames.recs.forEach(function (rec, id) {
      var r = byId.get(id);
      if (rec.at > started) return; // loaded after this read began: the read may predate it
      if (!r && !whole) return;
      if (!r || !r.activeRun || r.activeRun.pluginRunId !== rec.pluginRunId) frames.unload(id, rec.pluginRunId);
    });
  }

  // ---- requests and orchestration (docs/dynamic-plugins.md, "What a page does") ------

  function openRequest(q) {
    q.at = tick();
    state.notes.delete(q.pluginId);
    state.requests.set(q.requestId, q);
    var act = state.activity.get(q.pluginId);
    if (!q.requiresApproval) {
      if (!driven.has(q.requestId)) {
        driven.add(q.requestId);
        orchestrate({ session: q.session, pluginId: q.pluginId, packageId: q.packageId, mode: q.mode, requestId: q.requestId, ticket: q.ticket, hasClientHalf: q.hasClientHalf });
      }
    } else if (!act || act.phase !== 'orchestrating') {
      state.activity.set(q.pluginId, { phase: 'awaiting-approval', requestId: q.requestId, session: q.session, packageId: q.packageId, mode: q.mode, name: q.name, purpose: q.purpose, hasClientHalf: q.hasClientHalf });
      attention(q.pluginId);
    }
    publish();
  }
  var driven = new Set(); // requests this page started on its own: never twice

  function closeRequest(id) {
    var q = state.requests.get(id);
    state.requests.delete(id);
    state.reviews.delete(id);
    if (!q) return;
    var act = state.activity.get(q.pluginId);
    if (act && act.phase === 'awaiting-approval' && act.requestId === id) state.activity.delete(q.pluginId);
    publish();
  }

  function approve(requestId, future) {
    var q = state.requests.get(requestId);
    var act = q && state.activity.get(q.pluginId);
    if (!q || !act || act.phase !== 'awaiting-approval' || act.requestId !== requestId) return;
    orchestrate({ session: q.session, pluginId: q.pluginId, packageId: q.packageId, mode: q.mode, requestId: requestId, ticket: q.ticket, future: future, hasClientHalf: q.hasClientHalf });
  }

  function decline(requestId) {
    var q = state.requests.get(requestId);
    var act = q && state.activity.get(q.pluginId);
    if (!q || !act || act.phase !== 'awaiting-approval' || act.requestId !== requestId) return;
    act.declining = true;
    publish();
    control(q.pluginId, rpc('resolveRequestRun', { requestId: requestId, ticket: q.ticket, resolution: { ok: false, reason: 'rejected' } }).then(function (acc) {
      if (acc.accepted || answeredElsewhere(q.pluginId, requestId, acc.settled)) return closeRequest(requestId);
      throw new Error(acc.message || 'the decline was refused');
    }));
  }

  var orchestrations = new Map(); // pluginId → promise: one per Plugin on this page
  function orchestrate(o) {
    var running = orchestrations.get(o.pluginId);
    if (running) return running;
    state.activity.set(o.pluginId, { phase: 'orchestrating', session: o.session, packageId: o.packageId, mode: o.mode, requestId: o.requestId });
    state.runError.delete(o.pluginId);
    state.actionError.delete(o.pluginId);
    state.notes.delete(o.pluginId);
    publish();
    var p = drive(o).catch(function (e) {
      state.runError.set(o.pluginId, { reason: 'client-half-failed', message: e.message });
    }).then(function () {
      orchestrations.delete(o.pluginId);
      var act = state.activity.get(o.pluginId);
      if (act && act.phase === 'orchestrating') state.activity.delete(o.pluginId);
      // A request that came while this page drove the run (the model asked to update as
      // soon as it ran) waits for its answer now.
      state.requests.forEach(function (q) { if (q.pluginId === o.pluginId && q.requestId !== o.requestId && q.requiresApproval && !state.activity.has(o.pluginId)) openRequest(q); });
      publish();
      refresh();
    });
    orchestrations.set(o.pluginId, p);
    return p;
  }

  async function drive(o) {
    var hh;
    try {
      hh = await rpc('runHostHalf', { session: o.session, pluginId: o.pluginId, packageId: o.packageId, mode: o.mode, requestId: o.requestId || null, approveFutureVersions: !!o.future, ticket: o.ticket || '' });
    } catch (e) { hh = { ok: false, reason: 'host-half-failed', message: e.message }; }
    if (!hh.ok) {
      // A request another page answered first is no failure of this one.
      if (o.requestId && answeredElsewhere(o.pluginId, o.requestId, hh.settled)) return;
      // The host already failed the request it started; a refusal changes nothing.
      state.runError.set(o.pluginId, { reason: hh.reason || 'host-half-failed', message: hh.message });
      return;
    }
    if (!o.hasClientHalf) return;
    var code;
    try {
      code = await rpc('getClientCode', { session: o.session, pluginId: o.pluginId, pluginRunId: hh.pluginRunId });
    } catch (e) {
      return settle(o, hh, { ok: false, reason: 'client-half-failed', message: 'getClientCode: ' + e.message });
    }
    var res = await frames.load(code, o.session);
    if (res.ok) return settle(o, hh, { ok: true, waitingFor: res.waitingFor });
    var msg = res.stage + ': ' + res.message;
    state.runError.set(o.pluginId, { reason: 'client-half-failed', stage: res.stage, message: res.message });
    return settle(o, hh, { ok: false, reason: 'client-half-failed', message: msg, stack: res.stack });
  }

  // settle sends the one answer of the page that started the run; a page that attached
  // holds no token and answers nothing.
  async function settle(o, hh, resolution) {
    if (!hh.startedHere || !hh.token) return;
    resolution.token = hh.token;
    resolution.pluginRunId = hh.pluginRunId;
    var acc;
    try {
      acc = o.requestId
        ? await rpc('resolveRequestRun', { requestId: o.requestId, ticket: o.ticket || '', resolution: resolution })
        : await rpc('settleUserRun', { session: o.session, pluginId: o.pluginId, resolution: resolution });
    } catch (e) { acc = { accepted: false, message: e.message }; }
    if (!acc.accepted && acc.message) state.actionError.set(o.pluginId, acc.message);
  }

  // SETTLED words how a request ended (the outcome the host reported) for a page whose
  // answer came after it: another page answered first, the model withdrew it, or nobody
  // answered in time.
  var ELSEWHERE = 'Already answered in another panel page: ';
  var SETTLED = {
    approved: ELSEWHERE + 'approved.',
    completed: ELSEWHERE + 'approved.',
    rejected: ELSEWHERE + 'declined.',
    failed: ELSEWHERE + 'approved, but the run failed to start.',
    cancelled: 'The model withdrew this request (it stopped or removed the plugin) before you answered.',
    expired: 'This request expired before anyone answered; the model was told.'
  };

  // answeredElsewhere closes the buttons of a request whose answer the host refused
  // because it had already settled, with a calm note; false when the refusal said nothing
  // of that (a real failure).
  function answeredElsewhere(pluginId, requestId, outcome) {
    var note = SETTLED[outcome];
    if (!note) return false;
    state.notes.set(pluginId, note + ' Nothing was changed here.');
    closeRequest(requestId);
    return true;
  }

  // control runs a panel action and records its failure on the row.
  function control(pluginId, p) {
    state.actionError.delete(pluginId);
    state.notes.delete(pluginId);
    return p.catch(function (e) { state.actionError.set(pluginId, e.message); }).then(function () { publish(); refresh(); });
  }

  // ---- frames: one sandboxed frame per loaded client half ("Client halves in frames") ---

  var frames = {
    recs: new Map(),   // pluginId → {iframe, pluginId, packageId, pluginRunId, session, capability, epoch}
    slots: new Map(),  // pluginId → the card's slot element
    refs: new Map(),   // pluginId → stable ref callback
    waiters: new Map(),
    queues: new Map(), // pluginId → the tail of its operations

    enqueue: function (id, fn) {
      var prev = this.queues.get(id) || Promise.resolve();
      var next = prev.then(fn, fn); // a failure does not wedge the queue
      this.queues.set(id, next.catch(function () {}));
      return next;
    },

    ref: function (id) {
      var self = this;
      if (!this.refs.has(id)) {
        this.refs.set(id, function (el) {
          var rec = self.recs.get(id);
          if (!el) { self.slots.delete(id); return; }
          self.slots.set(id, el);
          if (rec && rec.iframe.parentNode !== el) self.teardown(rec); // a moved frame reloads: drop it
          (self.waiters.get(id) || []).forEach(function (f) { f(el); });
          self.waiters.delete(id);
        });
      }
      return this.refs.get(id);
    },

    slot: function (id, ms) {
      var el = this.slots.get(id);
      if (el) return Promise.resolve(el);
      var self = this;
      return new Promise(function (resolve) {
        var list = self.waiters.get(id) || [];
        list.push(resolve);
        self.waiters.set(id, list);
        setTimeout(function () { resolve(null); }, ms);
      });
    },

    load: function (code, session) {
      var self = this;
      return this.enqueue(code.pluginId, async function () {
        var old = self.recs.get(code.pluginId);
        if (old && old.pluginRunId === code.pluginRunId && old.ok) return { ok: true, waitingFor: old.waitingFor };
        if (old) self.teardown(old);
        var el = await self.slot(code.pluginId, 5000);
        if (!el) return { ok: false, stage: 'evaluate', message: 'the panel shows no card for ' + code.pluginId + ' to load its client half into; reload the panel', stack: '' };
        var iframe = document.createElement('iframe');
        iframe.setAttribute('sandbox', 'allow-scripts');
        iframe.setAttribute('referrerpolicy', 'no-referrer');
        iframe.title = code.name + ' (' + code.pluginId + ')';
        iframe.className = 'client-frame';
        var rec = { iframe: iframe, pluginId: code.pluginId, packageId: code.packageId, pluginRunId: code.pluginRunId, session: session, capability: code.capability, at: tick() };
        var result = new Promise(function (resolve) {
          rec.onResult = resolve;
          rec.timer = setTimeout(function () { resolve({ ok: false, stage: 'evaluate', message: 'the client half did not finish loading within 15 s (an await that never settles?)', stack: '' }); }, 15000);
        });
        rec.onReady = function () {
          iframe.contentWindow.postMessage({ cordis: 1, type: 'load', code: code.code, pluginId: code.pluginId, packageId: code.packageId, pluginRunId: code.pluginRunId,
            slots: SLOTS.map(function (s) { return s.name; }) }, '*');
        };
        self.recs.set(code.pluginId, rec);
        iframe.src = BASE + 'frame';
        el.appendChild(iframe);
        var res = await result;
        clearTimeout(rec.timer);
        if (!res.ok) { self.teardown(rec); return res; }
        rec.ok = true;
        rec.waitingFor = res.waitingFor || [];
        state.loaded.set(code.pluginId, { packageId: code.packageId, pluginRunId: code.pluginRunId, waitingFor: rec.waitingFor });
        publish();
        return res;
      });
    },

    // unload tears down exactly run pluginRunId of pluginId; a newer run survives.
    unload: function (id, pluginRunId) {
      var self = this;
      return this.enqueue(id, function () {
        var rec = self.recs.get(id);
        if (rec && (!pluginRunId || rec.pluginRunId === pluginRunId)) self.teardown(rec);
      });
    },

    teardown: function (rec) {
      if (this.recs.get(rec.pluginId) !== rec) return;
      this.recs.delete(rec.pluginId);
      rec.iframe.remove();
      if (rec.onResult) rec.onResult({ ok: false, stage: 'evaluate', message: 'the client half was unloaded while it loaded', stack: '' });
      state.loaded.delete(rec.pluginId);
      state.renderFailure.delete(rec.pluginId);
      publish();
    },

    byWindow: function (w) {
      var found = null;
      this.recs.forEach(function (rec) { if (rec.iframe.contentWindow === w) found = rec; });
      return found;
    },

    report: function (rec) {
      return { session: rec.session, pluginId: rec.pluginId, pluginRunId: rec.pluginRunId, capability: rec.capability };
    },

    // onMessage routes a frame's message: only frames this page made are heard, and each
    // reaches only its own run.
    onMessage: function (ev) {
      var rec = frames.byWindow(ev.source);
      var m = ev.data;
      if (!rec || !m || m.cordis !== 1) return;
      var reply = function (msg) { msg.cordis = 1; msg.type = 'reply'; if (rec.iframe.contentWindow) rec.iframe.contentWindow.postMessage(msg, '*'); };
      switch (m.type) {
        case 'ready': if (rec.onReady) { var f = rec.onReady; rec.onReady = null; f(); } break;
        case 'loaded': if (rec.onResult) { rec.onResult({ ok: true, waitingFor: m.waitingFor || [] }); rec.onResult = null; } break;
        case 'failed': if (rec.onResult) { rec.onResult({ ok: false, stage: String(m.stage), message: String(m.message), stack: String(m.stack || '') }); rec.onResult = null; } break;
        case 'slots': rec.slots = Array.isArray(m.names) ? m.names.map(String) : []; break;
        case 'size': rec.iframe.style.height = Math.max(32, Math.min(Number(m.height) || 0, 2000)) + 'px'; break;
        case 'console': (m.level === 'error' ? console.error : console.log)('[cordis:' + rec.pluginId + ']', String(m.text).slice(0, 500)); break;
        case 'call':
          rpc('invoke', { pluginId: rec.pluginId, pluginRunId: rec.pluginRunId, capability: rec.capability, method: String(m.method), args: m.args === undefined ? null : m.args })
            .then(function (v) { reply({ id: m.id, ok: true, value: v }); }, function (e) { reply({ id: m.id, ok: false, error: { code: e.code || 'network', message: e.message } }); });
          break;
        case 'render-error':
          state.renderFailure.set(rec.pluginId, { slot: String(m.slot), message: String(m.message), abdicated: !!m.abdicated });
          publish();
          rpc('reportRenderFailure', Object.assign(frames.report(rec), { failure: { slot: String(m.slot), message: String(m.message), stack: String(m.stack || ''), abdicated: !!m.abdicated } })).catch(function () {});
          break;
        case 'guard-error':
          rpc('reportClientGuardFailure', Object.assign(frames.report(rec), { failure: { message: String(m.message), stack: String(m.stack || '') } })).catch(function () {});
          break;
      }
    }
  };
  window.addEventListener('message', frames.onMessage);

  // ---- the client inspect plane: what this page offers the model ---------------------

  // SLOTS are the slots a client half registers into (ctx.slots.register); the frames get
  // this list with their code, and the Slots provider describes it.
  var SLOTS = [
    { name: 'cordis.card', description: "The Plugin's card in the Cordis panel: the client half's view, rendered in its own sandboxed frame under the card's title. The newest registration renders.",
      register: "ctx.slots.register({ name: 'cordis.card', component: View })" },
    { name: 'tool.view.cordis', description: "The view of a cordis_run card in a chat UI; in the panel it renders in the Plugin's card, like cordis.card. It accepts only key: 'self' (the run's <pluginId>.<packageId>).",
      register: "ctx.slots.register({ name: 'tool.view.cordis', key: 'self', component: View })", keys: ['self'] }
  ];
  var SLOT_PROPS = { pluginId: 'string', packageId: 'string', pluginRunId: 'string' };

  var CLIENT_BUILTINS = [
    { name: 'React', kind: 'parameter', signature: 'React', description: 'React 18.3.1, served by the panel. There is no JSX: write const h = React.createElement. Hooks work in components.' },
    { name: 'host', kind: 'parameter', signature: 'host.call(method: string, args?: JSON): Promise<JSON>', description: 'Calls the handler the host half declared with harness.handle(method, fn), for this run only; args and the answer are JSON.' },
    { name: 'styles', kind: 'parameter', signature: 'styles.insert(css: string): () => void', description: "Adds CSS to this client half's frame and returns its disposer; everything inserted goes when the run unloads." },
    { name: 'console', kind: 'parameter', signature: 'console.log | info | warn | error | debug(...args)', description: 'Logs tagged [cordis:<pluginId>] in the page console.' },
    { name: 'ctx', kind: 'context', signature: 'apply(ctx): ctx.slots.register({ name, component, key? }): () => void; ctx.setTimeout(fn, ms) / ctx.setInterval(fn, ms): () => void (inject: [\'timer\']); ctx.effect(fn); ctx.pluginId',
      description: 'The context the plugin\u2019s apply(ctx) receives: slots to render into (the Slots provider lists them), timers cleared at unload, and effects with disposers.' }
  ];

  var CLIENT_SERVICES = [
    { key: 'timer', description: 'Timers cleared when the client half unloads.', access: { inject: ['timer'], expression: 'ctx.setTimeout(fn, ms)' },
      methods: [{ name: 'setTimeout', signature: 'ctx.setTimeout(fn: () => void, ms: number): () => void' }, { name: 'setInterval', signature: 'ctx.setInterval(fn: () => void, ms: number): () => void' }] }
  ];

  function closedObject(props) { return { type: 'object', properties: props || {}, additionalProperties: false }; }

  // occupants lists the runs in slot that belong to session: a query of one
  // session never learns what another session runs, even on the operator's page.
  function occupants(slot, session) {
    var out = [];
    frames.recs.forEach(function (rec) {
      if (rec.session === session && (rec.slots || []).indexOf(slot) >= 0) out.push({ pluginId: rec.pluginId, packageId: rec.packageId, pluginRunId: rec.pluginRunId });
    });
    return out;
  }

  function listSubTree(input, session) {
    var root = input.root;
    var under = function (s) { return root === undefined || s.name === root || s.name.indexOf(root + '.') === 0; };
    var out = { trees: SLOTS.filter(under).map(function (s) { return { name: s.name, description: s.description, occupants: occupants(s.name, session).length }; }), referencedTypes: [] };
    if (root !== undefined) {
      var sel = SLOTS.find(function (s) { return s.name === root; });
      out.requestedRoot = { name: root, available: out.trees.length > 0 };
      if (sel) out.selected = Object.assign({}, sel, { props: SLOT_PROPS, order: 'the newest registration renders', occupants: occupants(sel.name, session) });
    }
    return out;
  }

  function listService(input) {
    if (input.service === undefined) {
      return { mode: 'catalog', services: CLIENT_SERVICES.map(function (s) { return { key: s.key, description: s.description, methods: s.methods }; }) };
    }
    var s = CLIENT_SERVICES.find(function (x) { return x.key === input.service; });
    if (!s) throw new Error('no client Service named ' + JSON.stringify(input.service) + '; the client services are: ' + CLIENT_SERVICES.map(function (x) { return x.key; }).join(', '));
    return { mode: 'service', service: s, referencedTypes: [] };
  }

  // PROVIDERS are this page's client inspect providers, one method each
  // (docs/dynamic-plugins.md, "Client providers and queries").
  var PROVIDERS = [
    { id: 'Builtin', description: 'What a client half has in the Cordis panel: its parameters (React, host, styles, console) and the ctx its plugin gets.',
      method: 'listBuiltins', methodDescription: "List the client half's parameters and ctx verbs.", input: closedObject(),
      output: { type: 'object', description: '{builtins:[{name, kind, signature, description}], referencedTypes:[]}' },
      query: function () { return { builtins: CLIENT_BUILTINS, referencedTypes: [] }; } },
    { id: 'Slots', description: 'The slots a client half renders into in this panel page (ctx.slots.register), with their contracts and who occupies them now.',
      method: 'listSubTree', methodDescription: 'List the slots, or those under root ({root: "cordis.card"}) with the full contract of that slot and its occupants.',
      input: closedObject({ root: { type: 'string', description: 'A slot name, such as "cordis.card", or a dotted prefix of one.' } }),
      output: { type: 'object', description: '{requestedRoot?:{name, available}, trees:[{name, description, occupants}], selected?:{name, description, register, keys?, props, order, occupants:[{pluginId, packageId, pluginRunId}]}, referencedTypes:[]}' },
      query: listSubTree },
    { id: 'Service', description: 'The services a client half can inject in the Cordis panel, with their methods.',
      method: 'listService', methodDescription: 'List the client services, or describe one ({service: "timer"}) with how to reach it.',
      input: closedObject({ service: { type: 'string', description: 'A client service key, such as "timer".' } }),
      output: { type: 'object', description: '{mode:"catalog", services:[{key, description, methods}]} or {mode:"service", service:{key, description, access:{inject, expression}, methods}, referencedTypes:[]}' },
      query: listService }
  ];

  var inspect = {
    page: '',          // this connection's page id (cordis/connected); it expires with the stream
    seen: new Map()    // requestId → 'answering' | 'resolved': one answer per query
  };

  // publishProviders sends this page's manifest for the current connection.
  function publishProviders() {
    var page = inspect.page;
    if (!page) return;
    var providers = PROVIDERS.map(function (p) {
      return { id: p.id, description: p.description, methods: [{ name: p.method, description: p.methodDescription, inputSchema: p.input, outputSchema: p.output }] };
    });
    rpc('syncInspectManifest', { page: page, providers: providers }).catch(function (e) {
      console.error('[cordis] the model cannot see this page\u2019s inspect providers: ' + e.message);
    });
  }

  function inspectFailure(code, message) { var e = new Error(message); e.code = code; return e; }

  function runProvider(q) {
    var p = PROVIDERS.find(function (x) { return x.id === q.provider; });
    if (!p) throw inspectFailure('provider-missing', 'this panel page offers no client provider ' + JSON.stringify(q.provider) + '; it offers ' + PROVIDERS.map(function (x) { return x.id; }).join(', '));
    if (q.method !== p.method) throw inspectFailure('method-missing', 'unknown ' + p.id + ' inspect method ' + JSON.stringify(q.method) + '; its method is ' + p.method);
    return p.query(q.input && typeof q.input === 'object' ? q.input : {}, q.session);
  }

  // answerQuery answers a cordis/inspect-query once: the data, or why this page cannot
  // (a failure settles the query when no page can do better). Nothing is sent for a query
  // that was resolved meanwhile.
  function answerQuery(q) {
    if (inspect.seen.has(q.requestId)) return;
    inspect.seen.set(q.requestId, 'answering');
    trimSeen();
    var page = inspect.page;
    Promise.resolve().then(function () { return runProvider(q); }).then(function (data) {
      return { ok: true, data: data };
    }, function (e) {
      return { ok: false, error: { code: e.code || 'provider-error', message: (e && e.message) || String(e) } };
    }).then(function (resolution) {
      if (inspect.seen.get(q.requestId) === 'resolved' || page !== inspect.page) return null;
      return rpc('resolveInspectQuery', { page: page, session: q.session, requestId: q.requestId, resolution: resolution });
    }).catch(function (e) { console.error('[cordis] answering inspect query ' + q.requestId + ': ' + e.message); });
  }

  function trimSeen() {
    if (inspect.seen.size <= 256) return;
    var old = inspect.seen.keys().next().value;
    inspect.seen.delete(old);
  }

  // ---- events ------------------------------------------------------------------------

  function knows(id) { return state.rows.some(function (r) { return r.pluginId === id; }); }

  function connect() {
    var es = new EventSource(BASE + 'events');
    var on = function (name, f) { es.addEventListener(name, function (e) { f(JSON.parse(e.data), e); }); };
    var fresh = function () { reset(); refresh(); loadActivity(); };
    on('cordis/connected', function (d, e) {
      state.connection = 'live';
      inspect.page = d.page || '';
      publishProviders();
      if (d.resumed) {
        refresh();
      } else {
        var epoch = String(e.lastEventId || '').split('-')[0];
        if (state.epoch && epoch !== state.epoch) forget(); // a restarted server
        state.epoch = epoch;
        fresh();
      }
      publish();
    });
    on('cordis/reset', fresh);
    on('cordis/inspect-query', answerQuery);
    on('cordis/inspect-query-resolved', function (d) { inspect.seen.set(d.requestId, 'resolved'); trimSeen(); });
    on('cordis/activity', putCard);
    on('cordis/request-run', function (q) { openRequest(q); if (!knows(q.pluginId)) refresh(); });
    on('cordis/request-run-resolved', function (d) { closeRequest(d.requestId); refresh(); });
    on('cordis/dynamic-package', function () { refresh(); });
    on('cordis/definition-changed', function () { refresh(); });
    on('cordis/dynamic-retract', function (d) { frames.unload(d.pluginId, d.pluginRunId); refresh(); });
    es.onerror = function () {
      state.connection = 'reconnecting';
      inspect.page = ''; // the runner drops this connection's providers with its stream
      publish();
      if (es.readyState === EventSource.CLOSED) setTimeout(connect, 2000); // refused: start over
    };
  }

  // attention brings a new approval to the person: the title counts it and its card
  // scrolls into view.
  function attention(pluginId) {
    setTimeout(function () {
      var el = document.getElementById('row-' + pluginId);
      if (el && el.scrollIntoView) el.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    }, 50);
  }

  // ---- readings (docs/dynamic-plugins.md, "The panel's readings and cards") ----------

  function pkgOf(row, id) { return (row.packages || []).find(function (k) { return k.packageId === id; }); }
  function lastPkg(row) { var ks = row.packages || []; return ks.length ? ks[ks.length - 1] : null; }

  function selected(row, act) {
    var pick = state.picks.get(row.pluginId);
    if (pick && pkgOf(row, pick)) return pick;
    return row.nextPackageId || row.currentPackageId || (lastPkg(row) || {}).packageId || (act && act.packageId) || '';
  }

  function visible(row, pkgId) {
    var ar = row.activeRun;
    if (!ar || ar.packageId !== pkgId) return 'idle';
    var k = pkgOf(row, pkgId);
    if (!k || !k.hasClientHalf) return 'running';
    var l = state.loaded.get(row.pluginId);
    return l && l.packageId === pkgId && l.pluginRunId === ar.pluginRunId ? 'running' : 'client-pending';
  }

  function status(row, act, sel) {
    var a = row.latestRun;
    if ((act && act.phase === 'awaiting-approval') || (a && a.status === 'awaiting-approval')) return 'awaiting-approval';
    if (a && a.status === 'failed' && a.packageId === sel) return 'failed';
    if (!row.activeRun) return 'idle';
    return visible(row, row.activeRun.packageId);
  }

  var LABELS = {
    'idle': ['Idle', 'Defined, not running'],
    'client-pending': ['Not loaded here', 'Runs on the host; its view is not loaded in this page'],
    'running': ['Running', ''],
    'awaiting-approval': ['Needs your approval', ''],
    'failed': ['Failed', ''],
    'removed': ['Removed', 'The plugin no longer exists'],
    'superseded': ['Superseded', 'A later run of the same version replaced this one']
  };
  var ICONS = { 'idle': '\u25CB', 'client-pending': '\u25D0', 'running': '\u25CF', 'awaiting-approval': '!', 'failed': '\u2715', 'removed': '\u2013', 'superseded': '\u21BB' };

  // rowsOf merges the inventory with this page's activities (an awaiting request whose
  // Plugin the inventory has not shown yet still gets a row).
  function rowsOf() {
    var rows = state.rows.map(function (r) { return { row: r, act: state.activity.get(r.pluginId) }; });
    state.activity.forEach(function (act, id) {
      if (act.phase === 'awaiting-approval' && !knows(id) && !state.removed.has(id)) {
        rows.push({ row: { pluginId: id, session: act.session, packages: [{ packageId: act.packageId, name: act.name, purpose: act.purpose, hasClientHalf: act.hasClientHalf }], grants: {} }, act: act });
      }
    });
    return rows.map(function (x) {
      var sel = selected(x.row, x.act);
      var st = status(x.row, x.act, sel);
      return { row: x.row, act: x.act, sel: sel, status: st, session: (x.act && x.act.session) || x.row.session, inputs: rowInputs(x.row, x.act, sel, st) };
    });
  }

  // rowInputs is everything a card shows, taken when the page renders: its row, this
  // page's activity for it and what the page keeps about it. A card renders again only
  // when one of them changed (sameRow).
  function rowInputs(row, act, sel, st) {
    var id = row.pluginId;
    return [row, act, act && act.declining, sel, st, act && act.requestId && state.requests.has(act.requestId), orchestrations.has(id),
      state.notes.get(id), state.loaded.get(id), state.runError.get(id), state.actionError.get(id), state.renderFailure.get(id),
      act && state.reviews.get(act.requestId)];
  }
  function sameRow(a, b) {
    var x = a.x.inputs, y = b.x.inputs;
    return x.length === y.length && x.every(function (v, i) { return v === y[i]; });
  }

  // ---- view --------------------------------------------------------------------------

  function button(label, onClick, kind, extra) {
    return h('button', Object.assign({ type: 'button', className: 'btn ' + (kind || ''), onClick: onClick }, extra || {}), label);
  }

  function Pill(props) {
    var l = LABELS[props.status];
    return h('span', { className: 'pill s-' + props.status, title: l[1] || l[0] }, h('span', { className: 'icon', 'aria-hidden': 'true' }, ICONS[props.status]), l[0]);
  }

  function halves(k) {
    if (!k) return '';
    if (k.hasHostHalf && k.hasClientHalf) return 'a host half (runs in the agent) and a client half (runs in this page)';
    if (k.hasClientHalf) return 'a client half (runs in this page)';
    return 'a host half (runs in the agent)';
  }

  // loadReview reads what request act of pluginId would run (the verb reviewPackage),
  // once per request; the card renders again when it arrives.
  function loadReview(pluginId, act) {
    var id = act.requestId;
    if (!id || state.reviews.has(id)) return;
    state.reviews.set(id, {});
    var g = inv.gen;
    var put = function (v) { if (g === inv.gen && state.reviews.has(id)) { state.reviews.set(id, v); publish(); } };
    rpc('reviewPackage', { session: act.session, pluginId: pluginId, packageId: act.packageId })
      .then(function (rv) { put({ review: rv }); }, function (e) { put({ error: e.message }); });
  }

  // Approval asks the person: what the model wants to run, the code that would run (or
  // what changed since the version they last approved), and buttons that say what each
  // approval grants.
  function Approval(props) {
    var act = props.act, row = props.row;
    var q = act.requestId && state.requests.get(act.requestId);
    var k = pkgOf(row, act.packageId) || {};
    React.useEffect(function () { loadReview(row.pluginId, act); }, [act.requestId]);
    var rv = state.reviews.get(act.requestId) || {};
    var reading = !rv.review && !rv.error;
    var what = act.mode === 'update' ? 'switch ' + row.pluginId + ' to ' : 'run ';
    var off = !!act.declining || reading;
    return h('div', { className: 'approval' },
      h('p', { className: 'ask' }, 'The model asks to ', what, h('strong', null, act.name || k.name || act.packageId), ' (', act.packageId, ').'),
      h('p', { className: 'halves' }, 'It has ', halves(k) || (act.hasClientHalf ? 'a client half (runs in this page)' : 'a host half'), '.'),
      h(CordisReview.Review, { review: rv.review, error: rv.error }),
      q ? h('div', { className: 'decide' },
        h('div', { className: 'actions' },
          button('Approve this version', function () { approve(act.requestId, false); }, 'primary', { disabled: off, 'data-grants': 'package' }),
          button('Approve this and future versions', function () { approve(act.requestId, true); }, '', { disabled: off, 'data-grants': 'future' }),
          button('Decline', function () { decline(act.requestId); }, 'danger', { disabled: !!act.declining })),
        h('p', { className: 'grant-says' },
          h('strong', null, 'This version'), ': ' + act.packageId + ' runs now and whenever it runs again, until you revoke it on this card. ',
          h('strong', null, 'Future versions'), ': every later version of ' + row.pluginId + ' runs too, without asking you, until revoked.'))
        : h('p', { className: 'note' }, 'This page did not receive the request; reload the panel to answer it.'));
  }

  // Grants lists what the person approved of a Plugin, each with Revoke: the versions that
  // run without asking (approved, or run from this panel) and every future version. A
  // revoked version that runs keeps running; its next run asks again.
  function Grants(props) {
    var row = props.row, id = row.pluginId, g = row.grants || {};
    var pkgs = g.packages || [];
    if (!pkgs.length && !g.future) return null;
    var revoke = function (args) { control(id, rpc('revokeGrant', Object.assign({ session: row.session, pluginId: id }, args))); };
    var item = function (key, label, args, what) {
      return h('li', { key: key, className: 'grant', 'data-grant': key }, label,
        button('Revoke', function () { revoke(args); }, 'link', { 'aria-label': 'Revoke the approval of ' + what }));
    };
    return h('div', { className: 'grants' },
      h('span', { className: 'grants-head', title: 'Revoking does not stop a version that runs now; its next run asks you again.' }, 'Approved to run without asking'),
      h('ul', null,
        pkgs.map(function (p) { var kk = pkgOf(row, p); return item(p, h('span', { className: 'ids' }, p + (kk && kk.name ? ' \u00B7 ' + kk.name : '')), { packageId: p }, p); }),
        g.future ? item('future', h('span', null, 'every future version'), { future: true }, 'every future version') : null));
  }

  function Controls(props) {
    var row = props.row, sel = props.sel, st = props.status, id = row.pluginId;
    var k = pkgOf(row, sel);
    var ar = row.activeRun;
    var busy = orchestrations.has(id);
    var out = [];
    if (row.packages.length > 1) {
      out.push(h('label', { key: 'v', className: 'picker' }, 'Version ',
        h('select', { value: sel, onChange: function (e) { state.picks.set(id, e.target.value); publish(); } },
          row.packages.map(function (p) {
            var tags = [];
            if (p.packageId === row.currentPackageId) tags.push('current');
            if (p.packageId === row.nextPackageId && p.packageId !== row.currentPackageId) tags.push('next');
            if (ar && p.packageId === ar.packageId) tags.push('live');
            return h('option', { key: p.packageId, value: p.packageId }, p.packageId + ' \u00B7 ' + p.name + (tags.length ? ' (' + tags.join(', ') + ')' : ''));
          }))));
    }
    if (k && (!ar || ar.packageId !== sel)) {
      var mode = row.currentPackageId && sel !== row.currentPackageId ? 'update' : 'run';
      out.push(button(mode === 'update' ? 'Switch to ' + sel : 'Run', function () { startRun(row, sel, mode); }, 'primary', { key: 'run', disabled: busy }));
    }
    if (st === 'client-pending' && ar && ar.packageId === sel) {
      out.push(button('Load into this page', function () { startRun(row, ar.packageId, 'run'); }, 'primary', { key: 'load', disabled: busy }));
    }
    if (ar) out.push(button('Stop', function () { control(id, rpc('stopFromPanel', { session: row.session, pluginId: id })); }, '', { key: 'stop' }));
    out.push(h(RemoveButton, { key: 'rm', row: row }));
    return h('div', { className: 'actions' }, out);
  }

  function RemoveButton(props) {
    var s = React.useState(false), confirming = s[0], setConfirming = s[1];
    var row = props.row;
    if (!confirming) return button('Remove', function () { setConfirming(true); }, 'quiet');
    var n = row.packageCount || (row.packages || []).length;
    return h('span', { className: 'confirm' }, 'Remove ' + row.pluginId + ' and ' + (n > 1 ? 'all its ' + n + ' versions' : 'its version') + '? ',
      button('Remove', function () {
        control(row.pluginId, rpc('undefineFromPanel', { session: row.session, pluginId: row.pluginId }).then(function () {
          frames.unload(row.pluginId);
          retire(row.pluginId);
        }));
      }, 'danger'),
      button('Keep', function () { setConfirming(false); }, 'quiet'));
  }

  function startRun(row, pkgId, mode) {
    var k = pkgOf(row, pkgId);
    orchestrate({ session: row.session, pluginId: row.pluginId, packageId: pkgId, mode: mode, requestId: null, hasClientHalf: !!(k && k.hasClientHalf) });
  }

  function Transition(props) {
    var row = props.row;
    var next = row.nextPackageId, cur = row.currentPackageId;
    // Only a real switch has a transition line; without a current Package, Run is the retry.
    if (!next || !cur || next === cur || orchestrations.has(row.pluginId)) return null;
    var a = row.latestRun;
    var why = a && a.packageId === next ? a.status : 'pending';
    return h('div', { className: 'transition' },
      h('span', null, 'Switching from ' + cur + ' to ' + next + ' did not finish (' + why + '). '),
      button('Retry ' + next, function () { startRun(row, next, 'update'); }, 'small'),
      button('Roll back to ' + cur, function () { startRun(row, cur, 'run'); }, 'small'));
  }

  var REASONS = { 'client-half-failed': 'Its client half failed', 'host-half-failed': 'Its host half failed' };

  function Errors(props) {
    var row = props.row, id = row.pluginId;
    var lines = [];
    var mine = state.runError.get(id);
    var a = row.latestRun;
    if (mine) lines.push(['run', (REASONS[mine.reason] || 'The last run failed (' + mine.reason + ')') + (mine.stage ? ' at ' + mine.stage : '') + ': ' + mine.message]);
    else if (a && a.error && (a.status === 'failed' || a.status === 'expired')) lines.push(['run', 'The last run ' + (a.status === 'expired' ? 'expired' : 'failed') + ' (' + a.error.phase + '): ' + a.error.message]);
    var act = state.actionError.get(id);
    if (act) lines.push(['action', act]);
    var rf = state.renderFailure.get(id) || (a && a.renderFailure);
    if (rf) lines.push(['render', 'Its view ' + (rf.abdicated ? 'abdicated' : 'held') + ' slot ' + rf.slot + ': ' + rf.message]);
    if (!lines.length) return null;
    return h('ul', { className: 'errors' }, lines.map(function (l, i) { return h('li', { key: i, className: 'err-' + l[0] }, l[1]); }));
  }

  // CompactNote says what a compact row (runner.InventoryRow.Compact) leaves out: its
  // other versions (packageCount counts them all) and the end of its long texts, which
  // end in "… [cut]".
  function CompactNote(props) {
    var row = props.row;
    if (!row.compact) return null;
    var listed = (row.packages || []).length, all = row.packageCount || listed;
    var named = row.currentPackageId || row.nextPackageId || (row.latestRun && row.latestRun.packageId);
    var text = all > listed
      ? 'Showing ' + listed + ' of its ' + all + ' versions: ' + (named ? 'the ones in use' : 'the newest') + '. The list is bounded, so this card is shortened.'
      : 'The list is bounded, so this card is shortened: long texts are cut.';
    return h('p', { className: 'compact-note', 'data-listed': listed, 'data-versions': all }, text);
  }

  function Row(props) {
    var x = props.x, row = x.row, act = x.act;
    var k = pkgOf(row, x.sel) || lastPkg(row) || {};
    var ar = row.activeRun;
    var busy = act && act.phase === 'orchestrating';
    var awaiting = x.status === 'awaiting-approval' && act && act.phase === 'awaiting-approval';
    var ids = [row.pluginId, x.sel];
    if (ar) ids.push(ar.pluginRunId);
    return h('article', { id: 'row-' + row.pluginId, className: 'row st-' + x.status, style: { order: x.status === 'awaiting-approval' ? 0 : 1 }, 'data-plugin': row.pluginId, 'data-status': x.status },
      h('header', null,
        h('div', { className: 'title' }, h('h3', null, k.name || row.pluginId), h('span', { className: 'ids' }, ids.join(' \u00B7 ')),
          // The operator's page names the session of each card not of "this session".
          !SCOPED && x.session && x.session !== currentSession() ? h('span', { className: 'session', title: 'The session that defined it' }, x.session) : null),
        h(Pill, { status: x.status })),
      k.purpose ? h('p', { className: 'purpose' }, k.purpose) : null,
      h(CompactNote, { row: row }),
      busy ? h('p', { className: 'busy' }, 'Starting ' + act.packageId + ' in this page\u2026') : null,
      awaiting ? h(Approval, { row: row, act: act }) : h(Controls, { row: row, sel: x.sel, status: x.status }),
      awaiting ? null : h(Transition, { row: row }),
      h(Grants, { row: row }),
      state.notes.has(row.pluginId) ? h('p', { className: 'settled' }, state.notes.get(row.pluginId)) : null,
      h(Errors, { row: row }),
      state.loaded.has(row.pluginId) ? h('p', { className: 'caption' }, 'Its view, sandboxed in this page:') : null,
      h('div', { className: 'slot', ref: frames.ref(row.pluginId) }));
  }
  var MemoRow = React.memo(Row, sameRow);

  function Group(props) {
    if (!props.items.length) return null;
    return h('section', { className: 'group' },
      h('h2', null, props.title, h('span', { className: 'count' }, String(props.items.length))),
      h('div', { className: 'rows' }, props.items.map(function (x) { return h(MemoRow, { key: x.row.pluginId, x: x }); })));
  }

  // ---- the activity list: what the model did (its cards), newest first ---------------

  function rowById(id) { return state.rows.find(function (r) { return r.pluginId === id; }); }

  // defineReading and runReading are the card readings (docs/dynamic-plugins.md, "The
  // panel's readings and cards") on this page (as DefineCard.Reading and RunCard.Reading
  // in Go).
  function defineReading(d) {
    if (!d.pluginId) return '';
    if (state.removed.has(d.pluginId)) return 'removed';
    var row = rowById(d.pluginId);
    return row ? visible(row, d.packageId) : 'idle';
  }

  function runReading(r, cards) {
    if (state.removed.has(r.pluginId)) return 'removed';
    var key = r.pluginId + '.' + r.packageId;
    var later = cards.some(function (o) {
      return o.run && o.run.state === 'ok' && o.run.session === r.session && o.run.pluginId + '.' + o.run.packageId === key && o.run.seq > r.seq;
    });
    if (later) return 'superseded';
    var row = rowById(r.pluginId);
    if (!row) return 'idle';
    var a = row.latestRun;
    if (a && r.pluginRunId && a.pluginRunId === r.pluginRunId && (a.status === 'awaiting-approval' || a.status === 'failed')) return a.status;
    return visible(row, r.packageId);
  }

  // CALLS words a call by its state: done, in progress, refused.
  var CALLS = {
    cordis_define: { ok: 'Defined', running: 'Defining', error: 'Could not define' },
    cordis_run: { ok: 'Asked to run', running: 'Asking to run', error: 'Could not run' },
    cordis_stop: { ok: 'Stopped', running: 'Stopping', error: 'Could not stop' },
    cordis_undefine: { ok: 'Removed', running: 'Removing', error: 'Could not remove' }
  };
  var CALL_PILLS = { running: ['Working\u2026', 's-client-pending'], error: ['Refused', 's-failed'], stopped: ['Interrupted', 's-idle'] };

  function ActivityCard(props) {
    var c = props.card, me = props.me;
    var words = CALLS[c.tool];
    var verb = c.state === 'stopped' ? 'Interrupted: ' + words.running.toLowerCase() : words[c.state] || words.ok;
    var subject = [], detail = null, reading = '', code = null;
    if (c.define) {
      var d = c.define;
      subject.push(h('strong', { key: 'n' }, d.name || '(no name)'));
      if (d.pluginId) subject.push(h('span', { key: 'i', className: 'ids' }, ' ' + d.pluginId + ' \u00B7 ' + d.packageId));
      if (d.purpose) detail = d.purpose;
      reading = defineReading(d);
      if (d.host || d.client) {
        code = h('details', { className: 'code' }, h('summary', null, 'Show the code'),
          d.host ? h('div', null, h('h4', null, 'Host half (runs in the agent)'), h('pre', null, d.host)) : null,
          d.client ? h('div', null, h('h4', null, 'Client half (runs in this page)'), h('pre', null, d.client)) : null);
      }
    } else if (c.run) {
      var r = c.run;
      subject.push(h('strong', { key: 'n' }, r.pluginId || '(no plugin)'));
      if (r.packageId) subject.push(h('span', { key: 'i', className: 'ids' }, ' ' + r.packageId + (r.mode === 'update' ? ' (update)' : '')));
      reading = r.pluginId ? runReading(r, props.cards) : '';
    } else if (c.row) {
      subject.push(h('strong', { key: 'n' }, c.row.pluginId || '(no plugin)'));
    }
    var err = (c.define || c.run || c.row).error;
    var pill = CALL_PILLS[c.state] ? h('span', { className: 'pill ' + CALL_PILLS[c.state][1] }, CALL_PILLS[c.state][0])
      : reading ? h(Pill, { status: reading }) : null;
    return h('li', { className: 'card c-' + c.state, 'data-tool': c.tool, 'data-state': c.state, 'data-reading': reading },
      h('div', { className: 'line' },
        h('span', { className: 'what' }, verb + ' ', subject),
        c.session && c.session !== me ? h('span', { className: 'session' }, c.session) : null,
        pill),
      detail ? h('p', { className: 'detail' }, detail) : null,
      err && c.state === 'error' ? h('p', { className: 'card-error' }, err) : null,
      code);
  }

  var ACTIVITY_SHOWN = 8;

  function Activity(props) {
    var s = React.useState(false), all = s[0], setAll = s[1];
    var cards = Array.from(state.cards.values()).sort(function (a, b) { return b.seq - a.seq; });
    if (!cards.length) return null;
    var shown = all ? cards : cards.slice(0, ACTIVITY_SHOWN);
    return h('section', { className: 'group activity' },
      h('h2', null, 'What the model did', h('span', { className: 'count' }, String(cards.length))),
      h('ol', { className: 'cards' }, shown.map(function (c) { return h(ActivityCard, { key: cardKey(c), card: c, cards: cards, me: props.me }); })),
      cards.length > shown.length ? button('Show ' + (cards.length - shown.length) + ' earlier', function () { setAll(true); }, 'link') : null);
  }

  // Bounded says that the inventory left Plugins out (runner.InventoryPage): they exist,
  // they have no card here, and the person learns how to see them.
  function Bounded() {
    var n = state.bound.omitted;
    if (!n) return null;
    var what = n + (SCOPED ? ' of your plugins' : n === 1 ? ' plugin' : ' plugins') + ' not shown';
    var how = SCOPED ? 'remove the ones you no longer need, or ask the model to undefine them'
      : 'remove some you no longer need, or open the panel for one session';
    return h('p', { className: 'bounded', role: 'status', 'data-omitted': n,
      title: 'The panel lists a bounded amount, so that no session can make every page slow. Plugins that run or wait for you come first, then the newest of each session.' },
      h('strong', null, what), ' (the list is bounded; ' + how + ').');
  }

  // Who says whose plugins the page shows: one session (a session's address) or every
  // session (the operator's).
  function Who(props) {
    if (SCOPED) {
      return h('span', { className: 'who', 'data-scope': 'session', title: 'This page shows only this session: its plugins, its requests and what its model did' },
        'Session ', h('strong', null, props.me));
    }
    if (meta('cordis-scope') !== 'all') return null; // only the operator's token exists
    return h('span', { className: 'who all', 'data-scope': 'all', title: 'The operator\u2019s address: this page shows every session' }, 'Every session');
  }

  function App() {
    React.useSyncExternalStore(subscribe, function () { return version; });
    var all = rowsOf();
    var me = currentSession();
    // The badge counts every live run, wherever it runs, and says how many of them have a
    // client half this page has not loaded ("Not loaded here" on their rows): the running
    // rows reading running alone would read "0 running" while a host half runs.
    var running = all.filter(function (x) { return x.row.activeRun; }).length;
    var notHere = all.filter(function (x) { return x.status === 'client-pending'; }).length;
    var waiting = all.filter(function (x) { return x.status === 'awaiting-approval'; }).length;
    document.title = (waiting ? '(' + waiting + ') ' : '') + 'Cordis panel';
    var mine = all.filter(function (x) { return me && x.session === me; });
    var others = SCOPED ? [] : all.filter(function (x) { return !me || x.session !== me; });
    var conn = { connecting: 'Connecting\u2026', live: 'Live', reconnecting: 'Reconnecting\u2026' }[state.connection];
    return h('div', { className: 'panel' },
      h('header', { className: 'top' },
        h('div', null,
          h('div', { className: 'heading' }, h('h1', null, 'Cordis panel'), h(Who, { me: me })),
          h('p', { className: 'sub' }, (SCOPED ? 'Plugins the model defined in your session.' : 'Plugins the model defined.') + ' Client halves run in this page, each in its own sandboxed frame.')),
        h('div', { className: 'badge', 'aria-label': running + ' running' + (notHere ? ', ' + notHere + ' of them not loaded in this page' : '') + ', ' + waiting + ' waiting for approval' },
          h('span', { className: 'b-run', title: 'Runs in the host or in a page; a view not loaded in this page is counted in brackets' },
            h('b', null, String(running)), ' running', notHere ? h('span', { className: 'b-elsewhere' }, ' (' + notHere + ' not loaded here)') : null),
          h('span', { className: 'b-wait' + (waiting ? ' hot' : '') }, h('b', null, String(waiting)), ' waiting for you'),
          h('span', { className: 'conn c-' + state.connection }, conn))),
      state.error ? h('p', { className: 'banner' }, state.error) : null,
      h(Bounded, null),
      !state.read && !all.length ? h('p', { className: 'empty' }, 'Reading what the model defined\u2026') : null,
      state.read && !all.length && !state.bound.omitted ? h('div', { className: 'empty' },
        h('h2', null, SCOPED ? 'Nothing defined in your session yet' : 'Nothing defined yet'),
        h('p', null, 'When the model defines a plugin with cordis_define, it appears here. Anything that wants to run in this page waits for your approval.')) : null,
      SCOPED ? h(Group, { title: 'Your plugins', items: mine })
        : me ? h(Group, { title: 'This session (' + me + ')', items: mine }) : null,
      h(Group, { title: me ? 'Other sessions' : 'All sessions', items: others }),
      h(Activity, { me: me }));
  }

  ReactDOM.createRoot(document.getElementById('root')).render(h(App));
  connect();
  // Now and then the page reads the inventory anyway (see POLL_MS).
  setInterval(function () { if (state.connection === 'live' && !document.hidden) refresh(); }, POLL_MS);
})();
