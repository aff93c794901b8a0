// The exercises page: each course with its sections and exercises, the
// student's status for each (not tried, waiting, failed, passed with the
// best ratio; late attempts marked), the assessments marked, the opening
// times and deadlines (dates.js).

import { api } from './api.js';
import { datesNote, lateMark } from './dates.js';
import { fill, h, link } from './dom.js';
import { formatRatio } from './format.js';

export function statusOf(progress, id) {
  const row = (progress || []).find((p) => p.exercise === id);
  if (!row) return { word: 'not tried', kind: 'untried' };
  const late = Boolean(row.late);
  if (row.status === 'passed') return { word: `passed, best ${formatRatio(row.best_ratio)}`, kind: 'passed', late };
  if (row.status === 'pending') return { word: 'being graded', kind: 'pending', late };
  return { word: 'not passed yet', kind: 'failed', late };
}

function exerciseItem(exercise, session) {
  const status = session.user ? statusOf(session.user.progress, exercise.id) : null;
  return h('li', { class: 'exercise' },
    link(`/exercises/${exercise.id}`, exercise.title || exercise.id),
    exercise.assessment ? h('span', { class: 'badge assessment' }, 'assessment') : null,
    datesNote(exercise),
    status ? h('span', { class: `status ${status.kind}` }, status.word, status.late ? [' ', lateMark()] : null) : null,
    exercise.error ? h('span', { class: 'error' }, ` (broken: ${exercise.error})`) : null);
}

function courseSection(course, byId, session) {
  return h('section', { class: 'course card' },
    h('h2', {}, course.title || course.id),
    course.error ? h('p', { class: 'error' }, course.error) : null,
    (course.sections || []).map((section) => h('div', { class: 'section' },
      h('h3', {}, section.title),
      h('ul', { class: 'exercises' },
        section.exercises.filter((id) => byId.has(id)).map((id) => exerciseItem(byId.get(id), session))))),
    course.sections ? h('p', {}, link(`/scoreboard/course/${course.id}`, 'Course scoreboard')) : null);
}

function certificatesSection(certificates) {
  if (!certificates.length) return null;
  return h('section', { class: 'card certificates' }, h('h2', {}, 'Your certificates'),
    h('ul', {}, certificates.map((c) => h('li', {}, link(`/certificates/${c.id}`, `${c.course_title || c.course}: certificate ${c.id}`),
      c.revoked ? h('span', { class: 'status failed' }, 'revoked') : null))));
}

export async function showExercises(session) {
  const [exercises, courses, mine] = await Promise.all([
    api('GET', '/api/v1/exercises'),
    api('GET', '/api/v1/courses'),
    session.user ? api('GET', '/api/v1/certificates?user=me') : { certificates: [] },
  ]);
  const byId = new Map(exercises.map((e) => [e.id, e]));
  const inCourses = new Set();
  for (const c of courses.courses) for (const s of c.sections || []) s.exercises.forEach((id) => inCourses.add(id));
  const others = exercises.filter((e) => !inCourses.has(e.id));
  fill(document.getElementById('main'),
    h('h1', {}, 'Exercises'),
    session.user ? null : h('p', {}, link('/login', 'Log in'), ' to submit and to see your progress.'),
    certificatesSection(mine.certificates),
    courses.courses.map((c) => courseSection(c, byId, session)),
    others.length ? h('section', { class: 'card' }, h('h2', {}, 'Other exercises'),
      h('ul', { class: 'exercises' }, others.map((e) => exerciseItem(e, session)))) : null);
}
