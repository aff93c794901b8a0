// Revoking a certificate (instructors), wherever one is shown: a danger
// action beside, never the primary button, that first asks, naming the
// student and the course, with the reason kept and shown on the
// certificate's public page.

import { api } from './api.js';
import { fill, h } from './dom.js';

// The longest reason the server keeps, in bytes (API_REASON_MAX).
const REASON_MAX = 500;

// The question, naming whose certificate and which course.
export function revokeQuestion(student, course) {
  return `Revoke the certificate of ${student} for ${course}? It stays on record, ` +
    'marked REVOKED with your reason on its public page, and no longer verifies as valid.';
}

// c: {id, student, course}; `revoked` after the server revoked it.
export function revokeControl(c, revoked) {
  const box = h('div', { class: 'revoke' });
  const error = h('p', { class: 'error', role: 'alert' });
  function ask() {
    const id = `revoke-reason-${c.id}`;
    const reason = h('input', { id, required: true, maxlength: REASON_MAX, size: 32 });
    fill(box, h('form', { class: 'confirm', 'aria-label': `Revoke the certificate of ${c.student}`, onsubmit: async (event) => {
      event.preventDefault();
      try {
        await api('POST', `/api/v1/certificates/${encodeURIComponent(c.id)}/revoke`, { reason: reason.value.trim() });
        await revoked();
      } catch (e) {
        fill(error, e.message);
      }
    } }, h('p', {}, revokeQuestion(c.student, c.course)),
    h('p', { class: 'inline-form' }, h('label', { for: id }, 'Reason'), reason,
      h('button', { type: 'submit', class: 'danger' }, 'Revoke the certificate'),
      h('button', { type: 'button', onclick: start }, 'Cancel')), error));
    reason.focus();
  }
  function start() {
    fill(box, h('button', { type: 'button', class: 'danger', onclick: ask }, 'Revoke…'));
  }
  start();
  return box;
}
