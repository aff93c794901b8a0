// The instructors' pages: Class (the gradebook, gradebook.js; the grades
// as CSV; the accounts, accounts.js; the tools, instructor_tools.js) and
// one student's history with hide (with a reason), show and regrade.

import { api } from './api.js';
import { notice, requireUser } from './app.js';
import { usersSection } from './accounts.js';
import { fill, h, link, table } from './dom.js';
import { progressTable } from './gradebook.js';
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

export async function showInstructor(session) {
  if (!forInstructors(session)) return;
  const main = document.getElementById('main');
  const shown = h('div', { role: 'status' });
  async function draw() {
    const [{ progress }, { users }] = await Promise.all([api('GET', '/api/v1/progress'), api('GET', '/api/v1/users')]);
    fill(main, h('h1', {}, 'Class'), instructorTools(),
      h('p', {}, h('a', { href: '/api/v1/export/grades.csv', download: 'grades.csv' }, 'Export the grades as CSV')),
      progressTable(progress), usersSection(session, users, shown, draw));
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
