// What would run: the approval card's view of a Package (the verb reviewPackage), its
// halves as text with line numbers, and for a Plugin that a person approved before, the
// changes since that version as a diff. Code is only ever text (React escapes it): a
// hostile model's "</script>" or "<img onerror>" reads as what it is.
window.CordisReview = (function () {
  'use strict';
  var h = React.createElement;
  var CODE_FOLD = 24;  // lines of a half shown before "Show all"
  var DIFF_FOLD = 60;  // lines of a diff shown before "Show all changes"
  var HALVES = {
    host: ['Host half', 'runs in the agent, with the tools and services it declares'],
    client: ['Client half', 'runs in this page, in a sandboxed frame']
  };

  function splitLines(code) {
    var l = code.split('\n');
    if (l.length && l[l.length - 1] === '') l.pop();
    return l;
  }
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many || one + 's'); }
  function kib(n) { return n < 1024 ? plural(n, 'byte') : n < 1 << 20 ? Math.round(n / 1024) + ' KiB' : (n / (1 << 20)).toFixed(1) + ' MiB'; }
  function linkButton(label, onClick, extra) {
    return h('button', Object.assign({ type: 'button', className: 'btn link', onClick: onClick }, extra || {}), label);
  }

  // CodeView shows lines (1-based from first) with their numbers, folded after CODE_FOLD.
  function CodeView(props) {
    var s = React.useState(false), all = s[0], setAll = s[1];
    var lines = props.lines;
    var shown = all || lines.length <= CODE_FOLD + 4 ? lines : lines.slice(0, CODE_FOLD);
    return h('div', null,
      h('div', { className: 'codebox' }, h('table', { className: 'code-lines' }, h('tbody', null, shown.map(function (t, i) {
        return h('tr', { key: i }, h('td', { className: 'ln' }, String(i + 1)), h('td', { className: 'tx' }, t));
      })))),
      shown.length < lines.length ? h('div', { className: 'fold' },
        linkButton('Show all ' + lines.length + ' lines', function () { setAll(true); }, { 'data-fold': 'code' }),
        h('span', null, ' (' + plural(lines.length - shown.length, 'more line') + ')')) : null);
  }

  // Gap is a fold of unchanged lines between hunks: it opens to show them (from the
  // reviewed code, where they are the same) when the page has them.
  function Gap(props) {
    var s = React.useState(false), open = s[0], setOpen = s[1];
    var from = props.from, to = props.to, code = props.code; // new-side line numbers, inclusive
    var n = to - from + 1;
    if (n <= 0) return null;
    var oldFrom = from + props.shift;
    if (open) {
      return code.slice(from - 1, to).map(function (t, i) {
        return h('tr', { key: 'g' + (from + i), className: 'd-ctx' }, h('td', { className: 'ln' }, String(oldFrom + i)), h('td', { className: 'ln' }, String(from + i)), h('td', { className: 'op' }, ''), h('td', { className: 'tx' }, t));
      });
    }
    var can = code && to <= code.length;
    return h('tr', { className: 'd-gap' }, h('td', { colSpan: 4 },
      '\u22EF ' + plural(n, 'unchanged line') + (n > 1 ? ' (' + from + '\u2013' + to + ')' : ' (' + from + ')') + ' ',
      can ? linkButton('show', function () { setOpen(true); }) : null));
  }

  // DiffView shows a changed half's hunks: removed lines marked "−" on red, added "+" on
  // green (the sign says it; the colour repeats it), each with its line number in the
  // version approved before and in this one, unchanged stretches folded.
  function DiffView(props) {
    var half = props.half, code = props.code;
    var s = React.useState(false), all = s[0], setAll = s[1];
    var rows = [], count = 0, total = 0, next = 1, shift = 0;
    half.hunks.forEach(function (hk) { total += hk.lines.length; });
    half.hunks.forEach(function (hk, hi) {
      if (!all && count >= DIFF_FOLD) return;
      rows.push(h(Gap, { key: 'gap' + hi, from: next, to: Math.max(hk.newStart, 1) - 1, code: code, shift: shift }));
      hk.lines.forEach(function (l, li) {
        if (!all && count >= DIFF_FOLD) return;
        count++;
        var cls = l.op === '+' ? 'd-add' : l.op === '-' ? 'd-del' : 'd-ctx';
        var sign = l.op === '+' ? '+' : l.op === '-' ? '\u2212' : '';
        rows.push(h('tr', { key: hi + '.' + li, className: cls },
          h('td', { className: 'ln' }, l.old ? String(l.old) : ''), h('td', { className: 'ln' }, l.new ? String(l.new) : ''),
          h('td', { className: 'op', 'aria-label': l.op === '+' ? 'added' : l.op === '-' ? 'removed' : undefined }, sign),
          h('td', { className: 'tx' }, l.text)));
      });
      next = hk.newStart + hk.newLines;
      shift = (hk.oldStart + hk.oldLines) - next;
    });
    var whole = all || count >= total;
    if (whole && !half.hunksCut) rows.push(h(Gap, { key: 'gap-end', from: next, to: half.lines, code: code, shift: shift }));
    return h('div', null,
      h('div', { className: 'codebox' }, h('table', { className: 'diff-lines' }, h('tbody', null, rows))),
      !whole ? h('div', { className: 'fold' }, linkButton('Show all changes', function () { setAll(true); }, { 'data-fold': 'diff' }),
        h('span', null, ' (' + plural(total - count, 'more line') + ')')) : null,
      half.hunksCut ? h('p', { className: 'cut' }, 'The changes are longer than the panel shows; the rest is left out. Read the whole code under \u201CWhole code\u201D.') : null);
  }

  // Half is one half of the reviewed Package: what changed since the base version (or
  // its whole code when there is no base), and its whole code on demand.
  function Half(props) {
    var half = props.half, base = props.base;
    var showDiff = half.change === 'changed';
    var s = React.useState(showDiff ? 'diff' : half.change === 'same' ? 'none' : 'code'), view = s[0], setView = s[1];
    var lines = React.useMemo(function () { return splitLines(half.code); }, [half.code]);
    var names = HALVES[half.half] || [half.half, ''];
    var tag = {
      'new': null,
      'same': ['same', 'unchanged since ' + base],
      'changed': ['changed', '+' + half.added + ' \u2212' + half.removed + ' since ' + base],
      'added': ['added', 'new in this version'],
      'removed': ['removed', 'removed in this version']
    }[half.change];
    var tabs = [];
    if (showDiff) tabs.push(['diff', 'Changes']);
    if (half.change !== 'removed') tabs.push(['code', half.change === 'same' ? 'Show code' : 'Whole code']);
    if (half.change === 'same' && view === 'code') tabs.push(['none', 'Hide']);
    var body = null;
    if (half.change === 'removed') {
      body = h('p', { className: 'half-note' }, base + '\u2019s ' + names[0].toLowerCase() + ' (' + plural(half.removed, 'line') + ') is gone: nothing of this version ' + names[1].replace(/,.*$/, '') + '.');
    } else if (view === 'diff') {
      body = h(DiffView, { half: half, code: half.cut ? null : lines });
    } else if (view === 'code') {
      body = h(CodeView, { lines: lines });
    }
    return h('section', { className: 'half h-' + half.half + ' ch-' + half.change, 'data-half': half.half, 'data-change': half.change },
      h('header', null,
        h('span', { className: 'half-name' }, names[0]),
        h('span', { className: 'half-where' }, names[1]),
        tag ? h('span', { className: 'change c-' + tag[0] }, tag[1]) : null,
        h('span', { className: 'half-size' }, half.change === 'removed' ? '' : plural(half.lines, 'line')),
        tabs.length > 1 || half.change === 'same' ? h('span', { className: 'tabs', role: 'tablist' }, tabs.map(function (t) {
          return h('button', { key: t[0], type: 'button', role: 'tab', 'aria-selected': view === t[0], className: 'tab' + (view === t[0] ? ' on' : ''), onClick: function () { setView(t[0]); } }, t[1]);
        })) : null),
      half.cut && view === 'code' ? h('p', { className: 'cut' }, 'This half is ' + kib(half.bytes) + '; the panel shows its first ' + plural(lines.length, 'line') + ' of ' + half.lines + '.') : null,
      body);
  }

  // Review is the "what would run" part of an approval card.
  function Review(props) {
    if (props.error) return h('p', { className: 'review-error' }, 'The code could not be read: ' + props.error + ' Reload the panel before you approve.');
    var rv = props.review;
    if (!rv) return h('p', { className: 'review-loading' }, 'Reading the code\u2026');
    var base = rv.base && rv.base.packageId;
    return h('div', { className: 'review', 'data-base': base || '' },
      h('p', { className: 'review-head' }, base
        ? ['Changes since ', h('strong', { key: 'b' }, base), ', the version you last approved:']
        : 'What would run:'),
      rv.halves.map(function (x) { return h(Half, { key: x.half, half: x, base: base }); }));
  }

  return { Review: Review };
})();
