// The dates section of the Class page: the course's and each assessment's
// opening time and deadline, edited in the viewer's time zone
// (datetime-local inputs, sent to the API in UTC) and stored as overrides
// of the files' dates until "Back to the file's dates"; and the students'
// extensions: granted on one exercise or the whole course, listed, revoked.

import { api } from './api.js';
import { fill, h, table } from './dom.js';
import { formatWhen, fromLocalInput, toLocalInput } from './dates.js';

// One row: what it is, its two inputs, Save, and back to the file's.
function datesRow(label, path, dates, error, redraw) {
  const own = dates || {};
  const opens = h('input', { type: 'datetime-local', value: toLocalInput(own.own_opens), 'aria-label': `Opening of ${label}` });
  const deadline = h('input', { type: 'datetime-local', value: toLocalInput(own.own_deadline), 'aria-label': `Deadline of ${label}` });
  async function save() {
    fill(error);
    const body = { opens: fromLocalInput(opens.value), deadline: fromLocalInput(deadline.value) };
    try {
      await api('PUT', path, body);
      await redraw();
    } catch (e) {
      fill(error, `${label}: ${e.message}`);
    }
  }
  async function clear() {
    fill(error);
    try {
      await api('DELETE', path);
      await redraw();
    } catch (e) {
      fill(error, `${label}: ${e.message}`);
    }
  }
  const file = `file: ${own.file_opens ? `opens ${formatWhen(own.file_opens)}` : 'no opening'}, ${own.file_deadline ? `due ${formatWhen(own.file_deadline)}` : 'no deadline'}`;
  return h('tr', {},
    h('th', { scope: 'row' }, label), h('td', {}, opens), h('td', {}, deadline),
    h('td', { class: 'hint' }, own.overridden ? `set here (${file})` : file),
    h('td', {}, h('button', { type: 'button', onclick: save, 'aria-label': `Save the dates of ${label}` }, 'Save'),
      own.overridden ? h('button', { type: 'button', onclick: clear }, "Back to the file's dates") : null));
}

function extensionForm(book, error, redraw) {
  const student = h('select', { id: 'extension-student' }, book.students.map((s) => h('option', { value: s.name }, `${s.display_name} (${s.name})`)));
  const on = h('select', { id: 'extension-on' },
    book.course ? h('option', { value: 'course' }, `the whole course`) : null,
    book.exercises.map((e) => h('option', { value: e.id }, e.id)));
  const until = h('input', { id: 'extension-until', type: 'datetime-local', required: true });
  async function grant(event) {
    event.preventDefault();
    fill(error);
    const body = { user: student.value, deadline: fromLocalInput(until.value) };
    if (on.value === 'course') body.course = book.course.id;
    else body.exercise = on.value;
    try {
      await api('POST', '/api/v1/extensions', body);
      await redraw();
    } catch (e) {
      fill(error, e.message);
    }
  }
  return h('form', { class: 'inline-form', onsubmit: grant },
    h('label', { for: 'extension-student' }, 'Student'), student,
    h('label', { for: 'extension-on' }, 'on'), on,
    h('label', { for: 'extension-until' }, 'until'), until,
    h('button', { type: 'submit' }, 'Grant the extension'));
}

function extensionsTable(extensions, error, redraw) {
  if (!extensions.length) return h('p', { class: 'hint' }, 'No extension granted.');
  async function revoke(x) {
    fill(error);
    try {
      await api('DELETE', `/api/v1/extensions/${x.id}`);
      await redraw();
    } catch (e) {
      fill(error, e.message);
    }
  }
  return table(['Student', 'On', 'Until', 'Granted', ''], extensions.map((x) => h('tr', {},
    h('td', {}, `${x.display_name} (${x.user})`), h('td', {}, `${x.scope} ${x.name}`),
    h('td', {}, formatWhen(x.deadline)), h('td', {}, `${formatWhen(x.granted_at)} by ${x.granted_by || '?'}`),
    h('td', {}, h('button', { type: 'button', onclick: () => revoke(x) }, 'Revoke')))));
}

// `book`: the gradebook shown (its course, exercises and students);
// `dates`: GET /api/v1/dates; `extensions`: GET /api/v1/extensions's list.
export function datesSection(book, dates, extensions, redraw) {
  const error = h('p', { class: 'error', role: 'alert' });
  const rows = [];
  if (book.course) rows.push(datesRow(`the course ${book.course.id}`, `/api/v1/courses/${encodeURIComponent(book.course.id)}/dates`, dates.courses[book.course.id], error, redraw));
  for (const e of book.exercises.filter((x) => x.assessment)) {
    rows.push(datesRow(e.id, `/api/v1/exercises/${encodeURIComponent(e.id)}/dates`, dates.exercises[e.id], error, redraw));
  }
  const ours = extensions.filter((x) => (x.scope === 'course' ? book.course && x.name === book.course.id : book.exercises.some((e) => e.id === x.name)));
  return h('section', { class: 'class-dates' }, h('h2', {}, 'Dates and extensions'),
    h('p', { class: 'hint' }, `Times in your time zone (${Intl.DateTimeFormat().resolvedOptions().timeZone}). An assessment without dates of its own takes the course's. Dates saved here win over the files until you go back to the file's.`),
    table(['', 'Opens', 'Deadline', 'Now', ''], rows), error,
    h('h3', {}, 'Extensions'),
    book.students.length ? extensionForm(book, error, redraw) : null,
    extensionsTable(ours, error, redraw));
}
