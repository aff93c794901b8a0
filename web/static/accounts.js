// The accounts of the Class page: add a student (or, for an admin, an
// instructor or an admin), reset a password (a student's, or anyone's for
// an admin); a new password is to be changed at the next login.

import { api } from './api.js';
import { fill, h, table } from './dom.js';

export // `shown` outlives a redraw, so a password shown once stays in sight.
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
