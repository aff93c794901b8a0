// The gradebook of the Class page: students × exercises, each cell the
// student's standing on the exercise.

import { h, link, table } from './dom.js';
import { formatRatio } from './format.js';

export function progressTable(progress) {
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
