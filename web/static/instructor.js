// The instructors' pages: the class's progress (students × exercises),
// one student's history with hide and show, the grades as CSV, and the
// accounts (add a student, reset a password: a student's, or anyone's for
// an admin; the new one is to be changed at the next login).

import { api } from './api.js';
import { requireUser } from './app.js';
import { fill, h, link, table } from './dom.js';
import { formatRatio } from './format.js';
import { SUBMISSION_COLUMNS, submissionRows } from './submissions.js';

function forInstructors(session) {
  if (!requireUser()) return false;
  if (session.user.role !== 'student') return true;
  fill(document.getElementById('main'), h('h1', {}, 'For instructors'), h('p', {}, 'This page is for instructors and admins.'));
  return false;
}

function progressTable(progress) {
  const students = [...new Set(progress.map((p) => p.name))].sort();
  const exercises = [...new Set(progress.map((p) => p.exercise))].sort();
  const cell = new Map(progress.map((p) => [`${p.name}\u0000${p.exercise}`, p]));
  const display = new Map(progress.map((p) => [p.name, p.display_name]));
  const rows = students.map((s) => h('tr', {},
    h('th', { scope: 'row' }, link(`/instructor/students/${s}`, display.get(s) || s), h('span', { class: 'login' }, ` (${s})`)),
    exercises.map((e) => {
      const p = cell.get(`${s}\u0000${e}`);
      if (!p) return h('td', { class: 'status untried' }, '—');
      const text = p.status === 'passed' ? `passed ${formatRatio(p.best_ratio)}` : p.status === 'pending' ? 'waiting' : 'not yet';
      return h('td', { class: `status ${p.status}` }, text);
    })));
  return students.length ? table(['Student', ...exercises], rows, 'Class progress') : h('p', {}, 'No submissions yet.');
}

// `shown` outlives a redraw, so a password shown once stays in sight.
function usersSection(session, users, shown, redraw) {
  const name = h('input', {
    id: 'new-name', required: true, maxlength: 63, pattern: '[a-z0-9._\\-]+',
    title: "1 to 63 characters among a-z, 0-9, '.', '_' and '-'",
  });
  const display = h('input', { id: 'new-display', maxlength: 64 });
  const role = h('select', { id: 'new-role' }, ['student', 'instructor', 'admin'].map((r) => h('option', { value: r }, r)));
  const error = h('p', { class: 'error', role: 'alert' });
  async function add(event) {
    event.preventDefault();
    fill(error);
    try {
      const answer = await api('POST', '/api/v1/users', { name: name.value, display_name: display.value || undefined, role: role.value });
      fill(shown, h('p', { class: 'card' }, `Account ${answer.name} created; its password, shown once: `, h('code', {}, answer.password || '(the one given)'),
        answer.must_change_password ? ' (to be changed at the first login)' : ''));
      name.value = '';
      display.value = '';
      await redraw();
    } catch (e) {
      fill(error, e.message);
    }
  }
  async function reset(user) {
    if (!confirm(`Reset the password of ${user.name}? Their sessions and API tokens end now.`)) return;
    try {
      const answer = await api('POST', `/api/v1/users/${encodeURIComponent(user.name)}/password`, {});
      fill(shown, h('p', { class: 'card' }, `The new password of ${answer.name}, shown once: `, h('code', {}, answer.password),
        ' (to be changed at the next login).'));
      await redraw();
    } catch (e) {
      fill(shown, h('p', { class: 'error' }, e.message));
    }
  }
  const mayReset = (u) => u.role === 'student' || session.user.role === 'admin';
  return h('section', {}, h('h2', {}, 'Accounts'),
    h('form', { class: 'inline-form', onsubmit: add },
      h('label', { for: 'new-name' }, 'Login name'), name,
      h('label', { for: 'new-display' }, 'Display name'), display,
      h('label', { for: 'new-role' }, 'Role'), role,
      h('button', { type: 'submit' }, 'Add the account'), error),
    shown,
    table(['Login', 'Display name', 'Role', 'Password', ''], users.map((u) => h('tr', {},
      h('td', {}, u.name), h('td', {}, u.display_name), h('td', {}, u.role),
      h('td', {}, u.must_change_password ? 'to be changed' : 'chosen'),
      h('td', {}, mayReset(u) ? h('button', { type: 'button', onclick: () => reset(u) }, 'Reset the password') : null)))));
}

export async function showInstructor(session) {
  if (!forInstructors(session)) return;
  const main = document.getElementById('main');
  const shown = h('div', { role: 'status' });
  async function draw() {
    const [{ progress }, { users }] = await Promise.all([api('GET', '/api/v1/progress'), api('GET', '/api/v1/users')]);
    fill(main, h('h1', {}, 'Class'),
      h('p', {}, h('a', { href: '/api/v1/export/grades.csv', download: 'grades.csv' }, 'Export the grades as CSV')),
      progressTable(progress), usersSection(session, users, shown, draw));
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
