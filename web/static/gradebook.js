// The gradebook of the Class page (GET /api/v1/gradebook): every student
// of the course, its exercises in course order (assessments marked), each
// cell the best counted verdict and ratio linking to that submission (or
// to the student's submissions), a late mark where only late attempts or
// a better late one exist, the assessments passed and the certificate;
// filtered here by name, assessments only, and who has not passed all.

import { h, link, table } from './dom.js';
import { formatWhen, lateMark } from './dates.js';
import { formatRatio } from './format.js';

// What the filters leave: {students, exercises}. `search` matches login
// or display name; `onlyAssessments` keeps the assessment columns;
// `unfinished` keeps the students who have not passed every assessment.
export function filterGradebook(book, { search = '', onlyAssessments = false, unfinished = false } = {}) {
  const needle = search.trim().toLowerCase();
  const assessments = book.exercises.filter((e) => e.assessment).length;
  const exercises = onlyAssessments ? book.exercises.filter((e) => e.assessment) : book.exercises;
  const students = book.students.filter((s) =>
    (!needle || s.name.toLowerCase().includes(needle) || (s.display_name || '').toLowerCase().includes(needle)) &&
    (!unfinished || s.assessments_passed < assessments));
  return { students, exercises };
}

function cellText(cell) {
  if (cell.status === 'passed') return `passed ${formatRatio(cell.best_ratio)}`;
  if (cell.status === 'pending') return 'waiting';
  return 'not yet';
}

function cellView(student, exercise) {
  const cell = student.cells[exercise.id];
  if (!cell) return h('td', { class: 'status untried' }, '—');
  const target = cell.best_submission ? `/submissions/${cell.best_submission}` : `/instructor/students/${student.name}`;
  return h('td', { class: `status ${cell.status}` }, link(target, cellText(cell)),
    cell.late ? [' ', lateMark(cell.status === 'passed' ? 'a better late attempt, not counted' : 'only late attempts, not counted')] : null);
}

function certificateView(certificate) {
  if (!certificate) return '—';
  return [link(`/certificates/${certificate.id}`, certificate.revoked ? 'revoked' : `issued ${formatWhen(certificate.issued_at)}`)];
}

function gradebookTable(book, shown) {
  const total = book.exercises.filter((e) => e.assessment).length;
  const headers = ['Student', ...shown.exercises.map((e) => h('span', { title: e.title }, e.id,
    e.assessment ? h('span', { class: 'badge assessment' }, 'assessment') : null)), 'Assessments', 'Certificate'];
  const rows = shown.students.map((s) => h('tr', {},
    h('th', { scope: 'row' }, link(`/instructor/students/${s.name}`, s.display_name || s.name), h('span', { class: 'login' }, ` (${s.name})`)),
    shown.exercises.map((e) => cellView(s, e)),
    h('td', {}, `${s.assessments_passed} of ${total}`),
    h('td', { class: s.certificate && s.certificate.revoked ? 'status failed' : null }, certificateView(s.certificate))));
  return table(headers, rows, book.course ? `Gradebook of ${book.course.title}` : 'Gradebook');
}

// The gradebook with its filters, redrawn as they change.
export function gradebookView(book) {
  if (!book.students.length) return h('p', {}, 'No student accounts yet: add them below.');
  const body = h('div');
  const search = h('input', { id: 'gradebook-search', type: 'search', placeholder: 'a name', oninput: draw });
  const onlyAssessments = h('input', { id: 'gradebook-assessments', type: 'checkbox', onchange: draw });
  const unfinished = h('input', { id: 'gradebook-unfinished', type: 'checkbox', onchange: draw });
  function draw() {
    const shown = filterGradebook(book, { search: search.value, onlyAssessments: onlyAssessments.checked, unfinished: unfinished.checked });
    body.replaceChildren(shown.students.length ? gradebookTable(book, shown) : h('p', {}, 'No student matches.'));
  }
  draw();
  return h('div', { class: 'gradebook' },
    h('div', { class: 'inline-form' },
      h('label', { for: 'gradebook-search' }, 'Find a student'), search,
      h('label', {}, onlyAssessments, ' only the assessments'),
      h('label', {}, unfinished, ' only who has not passed every assessment')),
    body);
}
