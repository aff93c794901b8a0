// The instructors' pages: Class (the gradebook, gradebook.js; the grades
// as CSV; the accounts, accounts.js) and one student's history with hide
// and show.

import { api } from './api.js';
import { requireUser } from './app.js';
import { usersSection } from './accounts.js';
import { fill, h, link, table } from './dom.js';
import { progressTable } from './gradebook.js';
import { SUBMISSION_COLUMNS, submissionRows } from './submissions.js';

function forInstructors(session) {
  if (!requireUser()) return false;
  if (session.user.role !== 'student') return true;
  fill(document.getElementById('main'), h('h1', {}, 'For instructors'), h('p', {}, 'This page is for instructors and admins.'));
  return false;
}

export async function showInstructor(session) {
  if (!forInstructors(session)) return;
  const main = document.getElementById('main');
  const accounts = usersSection(session); // made once: a redraw keeps the passwords it shows
  async function draw() {
    const { progress } = await api('GET', '/api/v1/progress');
    fill(main, h('h1', {}, 'Class'),
      h('p', {}, h('a', { href: '/api/v1/export/grades.csv', download: 'grades.csv' }, 'Export the grades as CSV')),
      progressTable(progress), accounts);
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
