// The login page.

import { api, setCsrf } from './api.js';
import { navigate, notice, refreshSession } from './app.js';
import { fill, h } from './dom.js';

export async function showLogin() {
  const error = h('p', { class: 'error', role: 'alert' });
  const name = h('input', { id: 'login-name', name: 'name', autocomplete: 'username', required: true });
  const password = h('input', {
    id: 'login-password', name: 'password', type: 'password', autocomplete: 'current-password',
    required: true,
  });
  const form = h('form', { class: 'card narrow', onsubmit: submit },
    h('h1', {}, 'Log in'),
    h('label', { for: 'login-name' }, 'Name'), name,
    h('label', { for: 'login-password' }, 'Password'), password,
    error,
    h('button', { type: 'submit' }, 'Log in'));

  async function submit(event) {
    event.preventDefault();
    fill(error, '');
    try {
      const answer = await api('POST', '/api/v1/login',
        { name: name.value, password: password.value }, { quiet401: true });
      setCsrf(answer.csrf_token);
      await refreshSession();
      notice('');
      const next = new URLSearchParams(location.search).get('next');
      navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/');
    } catch (e) {
      fill(error, e.message);
      password.select();
    }
  }

  fill(document.getElementById('main'), form);
  name.focus();
}
