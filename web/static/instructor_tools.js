// The instructors' tools around the Class page: the block at its top
// (links to the audit log and the certificates, regrading an exercise),
// and the tools on a submission's page (hide with a reason, regrade).

import { api } from './api.js';
import { notice } from './app.js';
import { fill, h, link } from './dom.js';
import { hideControl } from './hidden.js';
import { exerciseRegrade, regradeButton } from './regrade.js';

// The Class page's tools: a nav block, and "Regrade all submissions of
// this exercise" for an exercise chosen from the list.
export function instructorTools() {
  const choose = h('select', { id: 'regrade-exercise' });
  api('GET', '/api/v1/exercises').then((exercises) => fill(choose,
    exercises.map((e) => h('option', { value: e.id }, `${e.title} (${e.id})`))), () => {});
  return h('nav', { class: 'instructor-tools', 'aria-label': 'Instructor tools' },
    h('ul', {}, h('li', {}, link('/instructor/audit', 'Audit log')),
      h('li', {}, link('/instructor/certificates', 'Certificates'))),
    h('details', { class: 'regrade-exercise' }, h('summary', {}, 'Regrade an exercise (after fixing its reference or tests)'),
      h('p', { class: 'inline-form' }, h('label', { for: 'regrade-exercise' }, 'Exercise'), choose),
      exerciseRegrade(() => choose.value)));
}

// A submission's page, for instructors: hide (with a reason) or show
// again, and regrade; `redraw` redraws the page. Null for students.
export function submissionTools(session, submission, redraw) {
  if (!session.user || session.user.role === 'student') return null;
  return h('div', { class: 'submission-tools inline-form' },
    hideControl(submission, redraw),
    regradeButton(submission, async (text) => { await redraw(); notice(text); }));
}
