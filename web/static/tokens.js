// API tokens for CI and notebooks: create (shown once, with a curl
// command, a `kgrade submit` line and the Python client's commands ready
// to copy), list, revoke.

import { api } from './api.js';
import { requireUser } from './app.js';
import { fill, formatDate, h, table } from './dom.js';

function copyable(text, label) {
  const code = h('pre', { class: 'copy' }, text);
  const button = h('button', { type: 'button', onclick: async () => {
    try { await navigator.clipboard.writeText(text); fill(button, 'Copied'); } catch (e) { fill(button, 'Select and copy'); }
  } }, 'Copy');
  return h('div', { class: 'copyable', 'aria-label': label }, code, button);
}

// The Python client, zipped by the Makefile and served by the server.
const PYTHON_CLIENT = '/clients/kgrade_client.zip';

function pythonClientLink() {
  return h('a', { href: PYTHON_CLIENT, download: 'kgrade_client.zip' }, 'kgrade_client.zip');
}

function pythonShown(server, token) {
  return [
    h('p', {}, 'From Python 3 (nothing to install) or a Jupyter notebook, with ',
      pythonClientLink(), ' beside your kernel or notebook:'),
    copyable(`python3 kgrade_client.zip submit --server ${server} --token ${token} --exercise hidden-layer kernel.py`,
      'python3 kgrade_client.zip submit'),
    copyable(`import sys; sys.path.insert(0, 'kgrade_client.zip')\n%load_ext kgrade_client\n` +
      `%kgrade_login ${server} ${token}`, 'the notebook\'s first cell'),
    h('p', {}, 'then grade a cell (Numba; add ', h('code', {}, '--language cuda'), ' for CUDA C):'),
    copyable('%%kgrade hidden-layer\nfrom numba import cuda\n\n@cuda.jit\ndef hidden_layer(greyscales, weights, out):\n    ...',
      'a graded cell'),
  ];
}

function tokenShown(token) {
  const server = location.origin;
  return h('div', { class: 'card token-shown', role: 'alert' },
    h('p', {}, h('strong', {}, 'Your new token, shown this once: '), 'keep it in your CI\'s secrets.'),
    copyable(token, 'the token'),
    h('p', {}, 'Submit from a CI job or a terminal:'),
    copyable(`kgrade submit --server ${server} --token ${token} --exercise vector-add kernel.cu`, 'kgrade submit'),
    h('p', {}, 'or with curl:'),
    copyable(`curl -s -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\\n` +
      `     --data-binary "{\\"exercise\\": \\"vector-add\\", \\"source\\": $(jq -Rs . < kernel.cu)}" \\\n` +
      `     ${server}/api/v1/submissions`, 'curl'),
    ...pythonShown(server, token));
}

export async function showTokens(session) {
  if (!requireUser()) return;
  const shown = h('div');
  const list = h('div');
  const name = h('input', { id: 'token-name', required: true, maxlength: 64, placeholder: 'ci' });
  const error = h('p', { class: 'error', role: 'alert' });

  async function draw() {
    const { tokens } = await api('GET', '/api/v1/tokens');
    fill(list, tokens.length ? table(['Name', 'Created', 'Last used', ''], tokens.map((t) => h('tr', {},
      h('td', {}, t.name),
      h('td', {}, formatDate(t.created_at)),
      h('td', {}, t.last_used_at ? formatDate(t.last_used_at) : 'never'),
      h('td', {}, t.revoked ? 'revoked' : h('button', { type: 'button', onclick: () => revoke(t) }, 'Revoke'))))) : h('p', {}, 'No tokens yet.'));
  }
  async function revoke(t) {
    if (!confirm(`Revoke the token "${t.name}"? CI jobs using it will stop working.`)) return;
    await api('DELETE', `/api/v1/tokens/${t.id}`);
    await draw();
  }
  async function create(event) {
    event.preventDefault();
    fill(error);
    try {
      const answer = await api('POST', '/api/v1/tokens', { name: name.value });
      fill(shown, tokenShown(answer.token));
      name.value = '';
      await draw();
    } catch (e) {
      fill(error, e.message);
    }
  }
  fill(document.getElementById('main'), h('h1', {}, 'API tokens'),
    h('p', {}, 'A token lets your CI submit as you, with ', h('code', {}, 'kgrade submit'), ' or curl, ' +
      'and your notebooks with the Python client, ', pythonClientLink(), '.'),
    h('form', { class: 'inline-form', onsubmit: create },
      h('label', { for: 'token-name' }, 'Name'), name, h('button', { type: 'submit' }, 'Create a token'), error),
    shown, list);
  await draw();
  void session;
}
