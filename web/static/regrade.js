// Regrading from the pages (instructors): one submission, with its answer
// (its place in the queue), or every graded submission of an exercise
// after its reference or tests were fixed, behind a confirmation that says
// how many, that old results are kept and a new one added, and what the
// queue holds; then the answer, "12 submissions queued again".

import { api } from './api.js';
import { fill, h } from './dom.js';

function submissions(n) {
  return `${n} submission${n === 1 ? '' : 's'}`;
}

// What the confirmation asks, from GET /api/v1/exercises/{id}/regrade.
export function regradeQuestion({ exercise, regradable, queue_length: waiting }) {
  if (!regradable) return `No graded submission of ${exercise} to regrade: the queued and running ones are graded with the exercise as it is now.`;
  return `Regrade all ${submissions(regradable)} of ${exercise}? Each is graded again with the exercise as it is now ` +
    '(its reference and tests); its old results are kept and the new result is added beside them. ' +
    `They join the grading queue${waiting ? `, behind the ${submissions(waiting)} waiting now` : ''}, ` +
    'and submissions made meanwhile wait their turn among them.';
}

// The answer of POST /api/v1/exercises/{id}/regrade.
export function queuedAgainText(answer) {
  return `${submissions(answer.requeued)} queued again.`;
}

// "Regrade" of one submission (a graded one); `redraw` after.
export function regradeButton(s, redraw) {
  const said = h('span', { role: 'status', class: 'regrade-answer' });
  const button = h('button', { type: 'button', disabled: s.status !== 'done', onclick: async () => {
    button.disabled = true;
    try {
      const answer = await api('POST', `/api/v1/submissions/${s.id}/regrade`, {});
      await redraw(`Submission ${s.id} queued again (place ${answer.queue_position || 1}); its old results are kept.`);
    } catch (e) {
      fill(said, e.message);
      button.disabled = false;
    }
  } }, 'Regrade');
  return h('span', { class: 'regrade' }, button, said);
}

// "Regrade all submissions of this exercise…", for the exercise that
// `exercise()` names when clicked: asks, then says what was done.
export function exerciseRegrade(exercise) {
  const box = h('div', { class: 'regrade-box' });
  const said = h('p', { role: 'status', class: 'regrade-answer' });
  async function confirmRegrade() {
    const id = exercise();
    if (!id) return;
    try {
      const preview = await api('GET', `/api/v1/exercises/${encodeURIComponent(id)}/regrade`);
      fill(box, h('div', { class: 'confirm', role: 'alertdialog', 'aria-label': `Regrade ${id}` },
        h('p', {}, regradeQuestion(preview)),
        preview.regradable ? h('button', { type: 'button', class: 'danger', onclick: () => regrade(id) },
          `Regrade ${submissions(preview.regradable)}`) : null,
        h('button', { type: 'button', onclick: start }, preview.regradable ? 'Cancel' : 'Close')));
    } catch (e) {
      fill(said, e.message);
    }
  }
  async function regrade(id) {
    try {
      fill(said, queuedAgainText(await api('POST', `/api/v1/exercises/${encodeURIComponent(id)}/regrade`, {})));
    } catch (e) {
      fill(said, e.message);
    }
    start();
  }
  function start() {
    fill(box, h('button', { type: 'button', onclick: () => { fill(said); confirmRegrade(); } },
      'Regrade all submissions of this exercise…'));
  }
  start();
  return h('div', {}, box, said);
}
