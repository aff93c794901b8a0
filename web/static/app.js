// The pages' entry: who is signed in, the navigation, and the router that
// draws each page path (the server answers every one with index.html)
// from the REST API without reloading. An account that must change its
// password is sent to the password page, whatever page it asks for.

import { api, onPasswordChangeRequired, onSessionExpired, setCsrf } from './api.js';
import { fill, h, link } from './dom.js';
import { showAudit } from './audit.js';
import { showCertificate } from './certificate.js';
import { showCertificates } from './certificate_list.js';
import { showExercises } from './exercises.js';
import { showExercise } from './exercise.js';
import { showInstructor, showStudent } from './instructor.js';
import { showLogin } from './login.js';
import { showPassword } from './password.js';
import { showCourseScoreboard, showScoreboard } from './scoreboard.js';
import { showSubmission, showSubmissions } from './submissions.js';
import { showTokens } from './tokens.js';

export const session = { user: null };

const routes = [
  [/^\/$/, () => showExercises(session)],
  [/^\/login$/, () => showLogin(session)],
  [/^\/exercises\/([\w.-]+)$/, (m) => showExercise(session, m[1])],
  [/^\/submissions$/, () => showSubmissions(session)],
  [/^\/submissions\/(\d+)$/, (m) => showSubmission(session, m[1])],
  [/^\/scoreboard\/course\/([\w.-]+)$/, (m) => showCourseScoreboard(session, m[1])],
  [/^\/scoreboard\/([\w.-]+)$/, (m) => showScoreboard(session, m[1])],
  [/^\/tokens$/, () => showTokens(session)],
  [/^\/password$/, () => showPassword(session)],
  [/^\/certificates\/([a-z2-7]+)$/, (m) => showCertificate(session, m[1])],
  [/^\/instructor$/, () => showInstructor(session)],
  [/^\/instructor\/students\/([\w.-]+)$/, (m) => showStudent(session, m[1])],
  [/^\/instructor\/audit$/, () => showAudit(session)],
  [/^\/instructor\/certificates$/, () => showCertificates(session)],
];

const main = () => document.getElementById('main');

export function notice(text, kind = 'info') {
  const box = document.getElementById('notice');
  box.hidden = !text;
  box.className = `notice ${kind}`;
  fill(box, text || '');
}

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  route();
}

// Pages that need an account send a visitor to the login page.
export function requireUser(next) {
  if (session.user) return true;
  navigate(`/login?next=${encodeURIComponent(next || location.pathname)}`, { replace: true });
  return false;
}

function isInstructor() {
  return session.user && session.user.role !== 'student';
}

function drawNavigation() {
  const items = [link('/', 'Exercises')];
  if (session.user) items.push(link('/submissions', 'My submissions'), link('/tokens', 'API tokens'));
  if (isInstructor()) items.push(link('/instructor', 'Class'));
  fill(document.getElementById('nav'), h('ul', {}, items.map((a) => h('li', {}, a))));
  const who = document.getElementById('who');
  if (session.user) {
    fill(who, h('span', { class: 'user' }, session.user.display_name),
      link('/password', 'Password'),
      h('button', { type: 'button', class: 'link-button', onclick: logout }, 'Log out'));
  } else {
    fill(who, link('/login', 'Log in'));
  }
}

async function logout() {
  try {
    await api('POST', '/api/v1/logout', {}, { quiet401: true });
  } catch (e) {
    // already gone: the same outcome
  }
  session.user = null;
  setCsrf(null);
  drawNavigation();
  notice('You are logged out.');
  navigate('/login');
}

// Reads who is signed in (a reload keeps the session cookie, and this
// gives back its CSRF token).
export async function refreshSession() {
  try {
    const me = await api('GET', '/api/v1/me', undefined, { quiet401: true });
    session.user = me.signed_in ? me : null;
    setCsrf(me.csrf_token);
  } catch (e) {
    session.user = null;
    setCsrf(null);
  }
  drawNavigation();
}

// Sends an account whose password must be changed to the password page.
function passwordFirst(path) {
  if (!session.user || !session.user.must_change_password || path === '/password') return false;
  notice('Choose a password of your own before anything else.', 'warning');
  navigate('/password', { replace: true });
  return true;
}

async function route() {
  const path = location.pathname;
  if (passwordFirst(path)) return;
  for (const [pattern, show] of routes) {
    const m = path.match(pattern);
    if (m) {
      fill(main(), h('p', { class: 'loading' }, 'Loading…'));
      try {
        await show(m);
      } catch (e) {
        if (e.status === 401) return; // the session expired: the login page is showing
        fill(main(), h('h1', {}, 'Something went wrong'), h('p', { class: 'error' }, e.message));
      }
      return;
    }
  }
  fill(main(), h('h1', {}, 'No such page'), h('p', {}, link('/', 'Back to the exercises')));
}

function followLinks(event) {
  const a = event.target.closest('a[data-link]');
  if (!a || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  notice('');
  navigate(a.getAttribute('href'));
}

onSessionExpired(() => {
  if (!session.user) return;
  session.user = null;
  setCsrf(null);
  drawNavigation();
  notice('Your session has expired: log in again to go on.', 'warning');
  navigate(`/login?next=${encodeURIComponent(location.pathname)}`, { replace: true });
});

onPasswordChangeRequired(() => {
  if (session.user) session.user.must_change_password = true;
  passwordFirst(location.pathname);
});

document.addEventListener('click', followLinks);
window.addEventListener('popstate', route);
refreshSession().then(route);
