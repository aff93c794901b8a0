// The instructors' pages: Class (the tools, instructor_tools.js; the
// gradebook of a course, gradebook.js, with a course selector; the grades
// as CSV, long and wide; the dates and extensions, class_dates.js; the
// accounts, accounts.js) and one student's history with hide (with a
// reason), show and regrade.

import { api } from './api.js';
import { navigate, notice, requireUser } from './app.js';
import { usersSection } from './accounts.js';
import { datesSection } from './class_dates.js';
import { fill, h, link, table } from './dom.js';
import { gradebookView } from './gradebook.js';
import { hideControl } from './hidden.js';
import { instructorTools } from './instructor_tools.js';
import { regradeButton } from './regrade.js';
import { SUBMISSION_COLUMNS, submissionRows } from './submissions.js';

// False (after saying so, or sending a visitor to log in) unless the
// viewer is an instructor or an admin.
export function forInstructors(session) {
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
  const accounts = usersSection(session); // made once: a redraw keeps the passwords it shows
  async function draw() {
    const [book, dates, { extensions }] = await Promise.all([
      api('GET', `/api/v1/gradebook${courseQuery()}`), api('GET', '/api/v1/dates'), api('GET', '/api/v1/extensions')]);
    fill(main, h('h1', {}, 'Class'), instructorTools(), courseSelector(book), exportLinks(book),
      gradebookView(book), datesSection(book, dates, extensions, draw), accounts);
  }
  await draw();
}

export async function showStudent(session, name) {
  if (!forInstructors(session)) return;
  const main = document.getElementById('main');
  const actions = (s) => [hideControl(s, draw), regradeButton(s, async (text) => { await draw(); notice(text); })];
  async function draw() {
    const { submissions } = await api('GET', `/api/v1/submissions?user=${encodeURIComponent(name)}`);
    fill(main, h('h1', {}, `Submissions of ${name}`), h('p', {}, link('/instructor', 'Back to the class')),
      submissions.length ? table([...SUBMISSION_COLUMNS, 'Actions'], submissionRows(submissions, actions))
        : h('p', {}, 'No submissions.'));
  }
  await draw();
}
