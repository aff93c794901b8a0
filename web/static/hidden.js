// A submission hidden from the scoreboards: what its pages say (to its
// owner, "Hidden from the scoreboard by your instructor: <reason>"; to an
// instructor, who hid it and when), and the instructors' control that
// hides one, asking for the reason in a small form of its own, or shows it
// again.

import { api } from './api.js';
import { session } from './app.js';
import { fill, formatDate, h } from './dom.js';

// The longest reason the server keeps, in bytes (API_REASON_MAX).
export const REASON_MAX = 500;

function byInstructor() {
  return session.user && session.user.role !== 'student';
}

// The notice of a hidden submission (null when it is not hidden). A list's
// rows have the reason only; a submission's page also who and when.
export function hiddenNotice(s) {
  if (!s.hidden) return null;
  const who = byInstructor()
    ? `Hidden from the scoreboard${s.hidden_by ? ` by ${s.hidden_by}` : ''}${s.hidden_at ? ` on ${formatDate(s.hidden_at)}` : ''}`
    : 'Hidden from the scoreboard by your instructor';
  return h('p', { class: 'hidden-notice' }, s.hidden_reason ? `${who}: ${s.hidden_reason}` : `${who}.`);
}

// "Hide…" (a form asking the reason, which the student will read) or
// "Show again"; `redraw` after the change.
export function hideControl(s, redraw) {
  const box = h('div', { class: 'hide-control' });
  const error = h('p', { class: 'error', role: 'alert' });
  async function change(body) {
    try {
      await api('POST', `/api/v1/submissions/${s.id}/hide`, body);
      await redraw();
    } catch (e) {
      fill(error, e.message);
    }
  }
  function askReason() {
    const id = `hide-reason-${s.id}`;
    const reason = h('input', { id, required: true, maxlength: REASON_MAX, size: 28 });
    fill(box, h('form', { class: 'inline-form hide-form', onsubmit: (event) => {
      event.preventDefault();
      change({ hidden: true, reason: reason.value.trim() });
    } }, h('label', { for: id }, 'Reason (the student reads it)'), reason,
    h('button', { type: 'submit' }, 'Hide from the scoreboard'),
    h('button', { type: 'button', onclick: showButton }, 'Cancel'), error));
    reason.focus();
  }
  function showButton() {
    fill(box, s.hidden
      ? h('button', { type: 'button', onclick: () => change({ hidden: false }) }, 'Show again')
      : h('button', { type: 'button', onclick: askReason }, 'Hide…'), error);
  }
  showButton();
  return box;
}
