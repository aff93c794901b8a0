// The instructors' pages: Class (the gradebook of a course, gradebook.js,
// with a course selector; the grades as CSV, long and wide; the dates and
// extensions, class_dates.js; the accounts, accounts.js) and one student's
// history with hide and show.

import { api } from './api.js';
import { navigate, requireUser } from './app.js';
import { usersSection } from './accounts.js';
import { datesSection } from './class_dates.js';
import { fill, h, link, table } from './dom.js';
import { gradebookView } from './gradebook.js';
import { SUBMISSION_COLUMNS, submissionRows } from './submissions.js';

function forInstructors(session) {
  if (!requireUser()) return false;
  if (session.user.role !== 'student') return true;
  fill(document.getElementById('main'), h('h1', {}, 'For instructors'), h('p', {}, 'This page is for instructors and admins.'));
  return false;
}

// The course shown: ?course=ID, else the server's first.
function courseQuery() {
  const id = new URLSearchParams(location.search).get('course');
  return id ? `?course=${encodeURIComponent(id)}` : '';
}

function courseSelector(book) {
  if (book.courses.length < 2) return null;
  const select = h('select', { id: 'class-course', onchange: () => navigate(`/instructor?course=${encodeURIComponent(select.value)}`) },
    book.courses.map((c) => h('option', { value: c.id, selected: book.course && c.id === book.course.id }, c.title)));
  return h('p', {}, h('label', { for: 'class-course' }, 'Course '), select);
}

function exportLinks(book) {
  const course = book.course ? `&course=${encodeURIComponent(book.course.id)}` : '';
  return h('p', {}, 'Export the grades as CSV: ',
    h('a', { href: `/api/v1/export/grades.csv?format=wide${course}`, download: 'grades-wide.csv' }, 'one row per student'), ', or ',
    h('a', { href: '/api/v1/export/grades.csv', download: 'grades.csv' }, 'one row per student and exercise'));
}

export async function showInstructor(session) {
  if (!forInstructors(session)) return;
  const main = document.getElementById('main');
  const shown = h('div', { role: 'status' });
  async function draw() {
    const [book, { users }, dates, { extensions }] = await Promise.all([
      api('GET', `/api/v1/gradebook${courseQuery()}`), api('GET', '/api/v1/users'),
      api('GET', '/api/v1/dates'), api('GET', '/api/v1/extensions')]);
    fill(main, h('h1', {}, 'Class'), courseSelector(book), exportLinks(book),
      gradebookView(book), datesSection(book, dates, extensions, draw), usersSection(session, users, shown, draw));
  }
  await draw();
}

export async function showStudent(session, name) {
  if (!forInstructors(session)) return;
  const main = document.getElementById('main');
  async function toggle(s) {
    await api('POST', `/api/v1/submissions/${s.id}/hide`, { hidden: !s.hidden });
    await draw();
  }
  async function draw() {
    const { submissions } = await api('GET', `/api/v1/submissions?user=${encodeURIComponent(name)}`);
    fill(main, h('h1', {}, `Submissions of ${name}`), h('p', {}, link('/instructor', 'Back to the class')),
      submissions.length ? table([...SUBMISSION_COLUMNS, 'Scoreboard'],
        submissionRows(submissions, (s) => h('button', { type: 'button', onclick: () => toggle(s) },
          s.hidden ? 'Show again' : 'Hide'))) : h('p', {}, 'No submissions.'));
  }
  await draw();
}
