// The password page: a user changes their own password, giving the current
// one. An account whose password someone else made up (the first admin's,
// a generated one, an instructor's reset) is sent here, and nowhere else,
// until it has a password of its own.

import { api } from './api.js';
import { navigate, notice, refreshSession, requireUser } from './app.js';
import { fill, h } from './dom.js';

const PASSWORD_MIN_LENGTH = 8; // the server's (server/credentials.h)

function passwordField(id, autocomplete) {
  return h('input', {
    id, name: id, type: 'password', autocomplete, required: true,
    minlength: autocomplete === 'new-password' ? PASSWORD_MIN_LENGTH : undefined,
  });
}

export async function showPassword(session) {
  if (!requireUser()) return;
  const error = h('p', { class: 'error', role: 'alert' });
  const current = passwordField('current-password', 'current-password');
  const fresh = passwordField('new-password', 'new-password');
  const again = passwordField('repeat-password', 'new-password');

  async function submit(event) {
    event.preventDefault();
    fill(error, '');
    if (fresh.value !== again.value) {
      fill(error, 'The two new passwords differ: type the same one twice.');
      again.select();
      return;
    }
    try {
      await api('POST', '/api/v1/me/password', { current_password: current.value, new_password: fresh.value });
      await refreshSession();
      notice('Your password is changed; your other sessions are logged out.');
      navigate('/');
    } catch (e) {
      fill(error, e.message);
    }
  }

  fill(document.getElementById('main'), h('form', { class: 'card narrow', onsubmit: submit },
    h('h1', {}, 'Change your password'),
    session.user.must_change_password
      ? h('p', { class: 'must-change' }, 'Your password was made for you: choose one of your own to go on.')
      : null,
    h('label', { for: 'current-password' }, 'Current password'), current,
    h('label', { for: 'new-password' }, 'New password'), fresh,
    h('p', { class: 'hint' }, `${PASSWORD_MIN_LENGTH} characters or more.`),
    h('label', { for: 'repeat-password' }, 'New password, again'), again,
    error,
    h('button', { type: 'submit' }, 'Change the password')));
  current.focus();
}
