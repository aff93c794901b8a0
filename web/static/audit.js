// The audit log (instructors, /instructor/audit): who did what to whom
// and when, newest first, times in the viewer's time zone, filtered by any
// text of an entry; each target links to its page.

import { api } from './api.js';
import { fill, formatDate, h, link, table } from './dom.js';
import { forInstructors } from './instructor.js';

// Where an entry's target is shown: "submission 12 of sam", "certificate
// ID", "exercise ID", a login name (user add, password reset).
export function targetHref(action, target) {
  let m = /^submission (\d+)/.exec(target);
  if (m) return `/submissions/${m[1]}`;
  m = /^certificate ([a-z2-7]+)$/.exec(target);
  if (m) return `/certificates/${m[1]}`;
  m = /^exercise ([\w.-]+)$/.exec(target);
  if (m) return `/exercises/${m[1]}`;
  if (/^(user add|password reset)$/.test(action) && /^[\w.-]+$/.test(target)) return `/instructor/students/${target}`;
  return null;
}

// Whether an entry holds `text` (any case) in any field.
export function entryMatches(entry, text) {
  const wanted = text.trim().toLowerCase();
  return !wanted || [entry.actor, entry.action, entry.target, entry.detail, formatDate(entry.at)]
    .some((field) => String(field || '').toLowerCase().includes(wanted));
}

function entryRow(e) {
  const href = targetHref(e.action, e.target);
  return h('tr', {},
    h('td', {}, h('time', { datetime: e.at }, formatDate(e.at))),
    h('td', {}, e.actor || '—'),
    h('td', {}, e.action),
    h('td', {}, href ? link(href, e.target) : e.target),
    h('td', { class: 'detail' }, e.detail || ''));
}

export async function showAudit(session) {
  if (!forInstructors(session)) return;
  const { entries } = await api('GET', '/api/v1/audit');
  const shown = h('div');
  const filter = h('input', { id: 'audit-filter', type: 'search', placeholder: 'a name, an action, a reason…', oninput: draw });
  function draw() {
    const rows = entries.filter((e) => entryMatches(e, filter.value));
    fill(shown, h('p', { class: 'meta', role: 'status' }, `${rows.length} of ${entries.length} entries, newest first.`),
      rows.length ? table(['When', 'Who', 'Action', 'Target', 'Detail'], rows.map(entryRow), 'The audit log') : null);
  }
  fill(document.getElementById('main'), h('h1', {}, 'Audit log'),
    h('p', {}, link('/instructor', 'Back to the class')),
    h('p', { class: 'inline-form' }, h('label', { for: 'audit-filter' }, 'Filter'), filter), shown);
  draw();
}
