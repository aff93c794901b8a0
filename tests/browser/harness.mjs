// The harness of the browser tests (tests/browser/*.mjs but this one):
// playwright-core driving Debian's Chromium headless against a real
// `kgrade serve` on loopback, with a fresh database and the small exercise
// set tests/service/exercises; checks counted and reported, screenshots of
// the pages to BUILD/browser/. A test file calls runBrowserTests() with
// its journeys, each given the browser and the first admin's password.
//
//   node tests/browser/FILE.mjs BUILD

import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const require = createRequire(new URL('../../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');
export const run = promisify(execFile);

export const build = process.argv[2] || 'build';
export const kgrade = join(build, 'kgrade');
export const artifacts = join(build, 'browser');
export const kernels = 'tests/service/kernels';
// A random port (another run may be on this machine); taken again when the
// server cannot listen on it (a port the system lent a client meanwhile).
const randomPort = () => 20000 + Math.floor(Math.random() * 20000);
let port = randomPort();
export let base = `http://127.0.0.1:${port}`;
export const data = mkdtempSync(join(tmpdir(), 'kgrade-browser-'));
let passed = 0;
let failed = 0;

export async function check(name, body) {
  try {
    await body();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${String(e.message || e).split('\n').slice(0, 6).join('\n     | ')}`);
  }
}

// The plain editor's gutter text ('' with the CodeMirror editor, which has
// none: asking for a missing element's text would wait out its timeout).
export async function plainGutterText(page) {
  const gutter = page.locator('.gutter');
  return (await gutter.count()) > 0 ? await gutter.first().textContent() : '';
}

// Whether the server can compile Numba (python3-numba): the verdicts of
// Numba submissions are checked only there, the page's part everywhere.
export async function haveNumba() {
  return run(process.env.KGRADE_PYTHON || '/usr/bin/python3', ['-c', 'import numba']).then(() => true, () => false);
}

export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

// One try at `port`: the server and the admin's password, or what it said.
async function serveOnce(exercises) {
  const server = spawn(kgrade, ['serve', '--port', String(port), '--data', data,
    '--exercises', exercises, '--workers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let errors = '';
  let exited = false;
  server.stdout.on('data', (d) => { out += d; });
  server.stderr.on('data', (d) => { errors += d; });
  server.on('exit', () => { exited = true; });
  for (let i = 0; i < 600 && !exited; i++) { // a minute: the sandbox probe is slow on a loaded machine
    const match = out.match(/temporary password\s+(\S+)/);
    if (match && out.includes('kgrade serving')) return { server, admin: match[1] };
    await new Promise((r) => setTimeout(r, 100));
  }
  server.kill('SIGKILL');
  return { said: `${out}${errors}` };
}

export async function startServer({ exercises = 'tests/service/exercises' } = {}) {
  for (let attempt = 1; ; attempt++) {
    const started = await serveOnce(exercises);
    if (started.server) return started;
    if (attempt === 3 || !started.said.includes('cannot listen on')) {
      throw new Error(`the server did not start: ${started.said}`);
    }
    port = randomPort();
    base = `http://127.0.0.1:${port}`;
    rmSync(data, { recursive: true, force: true }); // a first database again: the password is shown
    mkdirSync(data, { recursive: true });
  }
}

export async function addStudent(name, password) {
  const child = execFile(kgrade, ['--db', join(data, 'kgrade.db'), 'user', 'add', name, '--role', 'student', '--password-stdin']);
  child.stdin.end(`${password}\n`);
  await new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`user add: ${code}`)))));
}

export async function login(page, name, password, { landing = 'Exercises' } = {}) {
  await page.goto(`${base}/login`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: landing }).waitFor();
}

// Replaces the editor's text: CodeMirror's or the plain text area.
export async function setSource(page, file) {
  const text = readFileSync(file, 'utf8');
  const editor = page.locator('.cm-content, textarea.code').first();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

export async function submitAndWait(page, file) {
  await setSource(page, file);
  await page.evaluate(() => { // every progress line shown, however briefly
    window.progressSeen = [];
    new MutationObserver(() => {
      const label = document.querySelector('.progress-label');
      if (label) window.progressSeen.push(label.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByRole('button', { name: 'Submit' }).click();
  await page.locator('.result .verdict').waitFor({ timeout: 120000 });
  return (await page.locator('.result').getAttribute('class')).replace('result', '').trim();
}

// The page's text says how many times faster, and never "0.00×".
export async function readsFaster(page) {
  await page.getByText(/× faster than the reference/).first().waitFor();
  const text = await page.locator('main').textContent();
  expect(!text.includes('0.00×'), `the page shows 0.00×: ${text.slice(0, 300)}`);
  expect(/0\.00[1-9]\d\d×, [1-9]\d\d× faster than the reference/.test(text), 'three significant figures, and how many times faster');
}

export async function shot(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

// A page that records every error it logs (a CSP violation would be one)
// and every dialog it opens, in `problems`; `expected` errors are let by.
export async function trackedPage(browser, { viewport = { width: 1280, height: 900 }, expected = null } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !(expected && expected.test(m.text()))) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return { context, page, problems };
}

// Starts the server (on `exercises`: the small test set unless told) and
// Chromium, runs the journeys in turn, reports and exits (0 when every
// check passed).
export async function runBrowserTests(file, journeys, { exercises } = {}) {
  mkdirSync(artifacts, { recursive: true });
  let server = null;
  let browser = null;
  try {
    const started = await startServer({ exercises });
    server = started.server;
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    for (const journey of journeys) await journey(browser, started.admin);
  } catch (e) {
    failed++;
    console.log(`FAIL the browser tests could not run: ${e.message}`);
  } finally {
    if (browser) await browser.close();
    if (server) server.kill('SIGTERM');
    rmSync(data, { recursive: true, force: true });
  }
  console.log(`${basename(file)}: ${passed} passed, ${failed} failed (screenshots in ${artifacts})`);
  process.exit(failed === 0 ? 0 : 1);
}
