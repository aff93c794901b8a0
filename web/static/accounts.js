// The accounts of the Class page: add one (a student, or for an admin an
// instructor or an admin), import many from CSV, reset a password (a
// student's, or anyone's for an admin). Every password kgrade makes up is
// shown once, in a card of its own with a copy button (and, for an import,
// "Copy all" and "Download as CSV"), and must be changed at the next login.
//
// The section keeps its own state: after a change it reloads only its
// table of accounts, so the card with the passwords stays in sight
// whatever the rest of the page redraws (the page may also put the same
// section element back after redrawing itself).

import { api } from './api.js';
import { fill, h, table } from './dom.js';

const COPIED_MS = 2000;

// Copies text: the Clipboard API where the page is a secure context
// (HTTPS, or localhost), else a selected text area and the copy command.
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (e) {
    const area = h('textarea', { class: 'offscreen', readonly: true, 'aria-hidden': 'true' }, text);
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

function copyButton(text, label) {
  const said = h('span', { class: 'copied', role: 'status' });
  const button = h('button', {
    type: 'button',
    onclick: async () => {
      const copied = await copyText(text);
      fill(said, copied ? 'Copied' : 'Not copied: select the text and copy it by hand');
      if (copied) setTimeout(() => fill(said), COPIED_MS);
    },
  }, label);
  return [button, said];
}

// name,password lines: names and generated passwords hold no comma or
// quote, so no field needs quoting.
function passwordsCsv(accounts) {
  return ['name,password', ...accounts.map((a) => `${a.name},${a.password}`)].join('\n') + '\n';
}

function downloadButton(csv, filename) {
  return h('button', {
    type: 'button',
    onclick: () => {
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const a = h('a', { href: url, download: filename, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    },
  }, 'Download as CSV');
}

// The card that shows new passwords, once: accounts is [{name, display_name?, password}].
function passwordCard(title, accounts, close) {
  const one = accounts.length === 1;
  const csv = passwordsCsv(accounts);
  return h('div', { class: 'card password-card' },
    h('h3', {}, title),
    h('p', { class: 'once' }, one
      ? 'This password is shown only now and will not be shown again: give it to its owner, who must choose a new one at the first login.'
      : 'These passwords are shown only now and will not be shown again: copy or download them, and give each to its owner, who must choose a new one at the first login.'),
    one
      ? h('p', { class: 'shown-password' }, `${accounts[0].name}: `, h('code', {}, accounts[0].password), ' ',
        copyButton(accounts[0].password, 'Copy the password'))
      : [table(['Login', 'Display name', 'Password'], accounts.map((a) => h('tr', {},
        h('td', {}, a.name), h('td', {}, a.display_name || a.name), h('td', {}, h('code', {}, a.password))))),
      h('p', { class: 'actions' }, copyButton(csv, 'Copy all'), downloadButton(csv, 'accounts.csv'))],
    h('p', {}, h('button', { type: 'button', onclick: close }, one ? 'I have kept it: hide it' : 'I have kept them: hide them')));
}

function addForm(session, show, reload) {
  const name = h('input', {
    id: 'new-name', required: true, maxlength: 63, pattern: '[a-z0-9._][a-z0-9._\\-]*',
    title: "1 to 63 characters among a-z, 0-9, '.', '_' and '-', not starting with '-'",
  });
  const display = h('input', { id: 'new-display', maxlength: 127 });
  const roles = session.user.role === 'admin' ? ['student', 'instructor', 'admin'] : ['student', 'instructor'];
  const role = h('select', { id: 'new-role' }, roles.map((r) => h('option', { value: r }, r)));
  const error = h('p', { class: 'error', role: 'alert' });
  async function add(event) {
    event.preventDefault();
    fill(error);
    try {
      const answer = await api('POST', '/api/v1/users', { name: name.value, display_name: display.value || undefined, role: role.value });
      show(`The account ${answer.name} is created`, [{ name: answer.name, password: answer.password }]);
      name.value = '';
      display.value = '';
      await reload();
    } catch (e) {
      fill(error, e.message);
    }
  }
  return h('form', { class: 'inline-form', onsubmit: add },
    h('label', { for: 'new-name' }, 'Login name'), name,
    h('label', { for: 'new-display' }, 'Display name'), display,
    h('label', { for: 'new-role' }, 'Role'), role,
    h('button', { type: 'submit' }, 'Add the account'), error);
}

function importForm(show, reload) {
  const file = h('input', { id: 'import-file', type: 'file', accept: '.csv,text/csv' });
  const text = h('textarea', {
    id: 'import-text', rows: 5, spellcheck: 'false',
    placeholder: 'name,display_name,role\nkim,"Lee, Kim",student\nlou,,',
  });
  const problems = h('div', { class: 'import-problems', role: 'alert' });
  async function submit(event) {
    event.preventDefault();
    fill(problems);
    const csv = file.files.length ? await file.files[0].text() : text.value;
    if (!csv.trim()) {
      fill(problems, h('p', { class: 'error' }, 'Choose a .csv file or paste the CSV text first.'));
      return;
    }
    try {
      const { users } = await api('POST', '/api/v1/users/import', csv, { contentType: 'text/csv' });
      show(`${users.length} account${users.length === 1 ? '' : 's'} created`, users);
      file.value = '';
      text.value = '';
      await reload();
    } catch (e) {
      fill(problems, h('p', { class: 'error' }, e.message),
        e.lines.length ? h('ul', { class: 'problems' }, e.lines.map((l) => h('li', {}, `Line ${l.line}: ${l.problem}`))) : null);
    }
  }
  return h('form', { class: 'import-form', onsubmit: submit },
    h('h3', {}, 'Import accounts from CSV'),
    h('p', { class: 'hint' }, 'The first line names the columns: name,display_name,role (display_name empty: the name; role empty: student). ',
      'Every line is checked; if one is wrong, nothing is created and the problems are listed by line.'),
    h('label', { for: 'import-file' }, 'A .csv file'), file,
    h('label', { for: 'import-text' }, 'or the CSV text'), text,
    h('p', {}, h('button', { type: 'submit' }, 'Import the accounts')), problems);
}

function usersTable(session, users, reset) {
  const mayReset = (u) => u.role === 'student' || session.user.role === 'admin';
  return table(['Login', 'Display name', 'Role', 'Password', ''], users.map((u) => h('tr', {},
    h('td', {}, u.name), h('td', {}, u.display_name), h('td', {}, u.role),
    h('td', {}, u.must_change_password ? 'to be changed' : 'chosen'),
    h('td', {}, mayReset(u) ? h('button', { type: 'button', onclick: () => reset(u) }, 'Reset the password') : null))));
}

export function usersSection(session) {
  const shown = h('div', { class: 'shown-once', 'aria-live': 'polite' });
  const list = h('div', { class: 'account-list' }, h('p', { class: 'loading' }, 'Loading the accounts…'));
  const show = (title, accounts) => fill(shown, passwordCard(title, accounts, () => fill(shown)));
  async function reload() {
    const { users } = await api('GET', '/api/v1/users');
    fill(list, usersTable(session, users, reset));
  }
  async function reset(user) {
    if (!confirm(`Reset the password of ${user.name}? Their sessions and API tokens end now.`)) return;
    try {
      const answer = await api('POST', `/api/v1/users/${encodeURIComponent(user.name)}/password`, {});
      show(`The new password of ${answer.name}`, [{ name: answer.name, password: answer.password }]);
      await reload();
    } catch (e) {
      fill(shown, h('p', { class: 'error' }, e.message));
    }
  }
  reload().catch((e) => fill(list, h('p', { class: 'error' }, e.message)));
  return h('section', { class: 'accounts' }, h('h2', {}, 'Accounts'),
    addForm(session, show, reload), shown, importForm(show, reload), list);
}
