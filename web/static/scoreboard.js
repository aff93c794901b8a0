// Scoreboards: per exercise (rank, user, time, ratio) and per course
// (assessments passed).

import { api } from './api.js';
import { fill, formatDate, h, link, table } from './dom.js';
import { formatMs, formatRatio } from './format.js';

export async function showScoreboard(session, exercise) {
  const board = await api('GET', `/api/v1/scoreboard/${encodeURIComponent(exercise)}`);
  const rows = board.rows.map((r) => h('tr', {},
    h('td', {}, String(r.rank)),
    h('td', {}, r.user, r.name && r.name !== r.user ? h('span', { class: 'login' }, ` (${r.name})`) : null),
    h('td', {}, formatMs(r.student_ms)),
    h('td', {}, formatRatio(r.ratio)),
    h('td', {}, formatDate(r.submitted_at))));
  fill(document.getElementById('main'),
    h('h1', {}, `Scoreboard: ${exercise}`),
    h('p', { class: 'meta' }, 'Each student\'s best passing submission at the assessment size, fastest first. ',
      link(`/exercises/${exercise}`, 'The exercise')),
    rows.length ? table(['Rank', 'Student', 'Time', 'Ratio', 'Submitted'], rows)
      : h('p', {}, 'Nobody has passed yet.'));
  void session;
}

export async function showCourseScoreboard(session, course) {
  const board = await api('GET', `/api/v1/scoreboard/course/${encodeURIComponent(course)}`);
  const rows = board.rows.map((r) => h('tr', {},
    h('td', {}, r.user, r.name && r.name !== r.user ? h('span', { class: 'login' }, ` (${r.name})`) : null),
    h('td', {}, `${r.count} of ${board.assessments.length}`),
    h('td', {}, (r.passed || []).join(', '))));
  fill(document.getElementById('main'),
    h('h1', {}, `Course scoreboard: ${course}`),
    h('p', { class: 'meta' }, `Assessments: ${board.assessments.join(', ')}.`),
    rows.length ? table(['Student', 'Assessments passed', 'Which'], rows) : h('p', {}, 'Nobody has passed an assessment yet.'));
  void session;
}
