// Opening times and deadlines as people read them: in the viewer's time
// zone (Intl), "opens …" / "due …" beside an exercise, the late mark of a
// submission after its deadline, and the datetime-local inputs of the
// Class page converted from and to the API's UTC (ISO 8601).

import { h } from './dom.js';

// "15 Dec 2026, 23:59" in the viewer's zone and language; '' for none.
export function formatWhen(iso) {
  if (!iso) return '';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

// An API time as a datetime-local input's value ("2026-12-15T23:59", the
// viewer's wall clock); '' for none.
export function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// A datetime-local input's value (the viewer's wall clock) as the API's
// UTC time; null for an empty input, undefined for one that is no time.
export function fromLocalInput(value) {
  if (!value) return null;
  const d = new Date(value); // a date-time without a zone is local time
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

// The words for an item's dates at `now`: "opens …" before its opening,
// "due …" before its deadline, "closed …" after it; [] when it has none.
export function datesWords(item, now = Date.now()) {
  const words = [];
  if (item.opens && Date.parse(item.opens) > now) words.push(`opens ${formatWhen(item.opens)}`);
  if (item.deadline) words.push(`${Date.parse(item.deadline) > now ? 'due' : 'closed'} ${formatWhen(item.deadline)}`);
  return words;
}

export function datesNote(item) {
  const words = datesWords(item);
  return words.length ? h('span', { class: 'dates-note' }, words.join(', ')) : null;
}

// The mark of a late submission: "late: submitted after the deadline of …".
export function lateNote(submission) {
  if (!submission.late) return null;
  return h('p', { class: 'late-note', role: 'note' },
    `late: submitted after the deadline of ${formatWhen(submission.deadline)}; it is graded and shown but does not count unless your instructor grants an extension.`);
}

// The short mark in tables.
export function lateMark(title = 'submitted after the deadline: not counted') {
  return h('span', { class: 'late-mark', title }, 'late');
}
