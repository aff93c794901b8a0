// Browser tests of accounts (the harness: harness.mjs). The admin's first
// login leads only to the password page; the admin adds an instructor on
// the Class page and sees the password once, in its own card, with a copy
// button that copies it; the instructor logs in with it, is sent to the
// password page, then adds a student (its password copied too), imports a
// pasted CSV of three students (one display name with a comma, in quotes)
// and sees every password with "Copy all" and "Download as CSV", and a
// file with bad lines refused line by line with nothing created; an
// imported student logs in with the password shown, is sent to the
// password page, changes it and lands on the exercises; an ordinary user
// changes their password from the menu and logs in with the new one. No
// page may log an error (a CSP violation would).
//
//   node tests/browser/accounts.mjs BUILD

import { readFileSync } from 'node:fs';
import { addStudent, base, check, expect, login, runBrowserTests, shot, trackedPage } from './harness.mjs';

async function changePassword(page, current, fresh) {
  await page.getByLabel('Current password').fill(current);
  await page.getByLabel('New password', { exact: true }).fill(fresh);
  await page.getByLabel('New password, again').fill(fresh);
  await page.getByRole('button', { name: 'Change the password' }).click();
  await page.getByRole('heading', { name: 'Exercises' }).waitFor();
}

// A page whose clipboard the test may read (127.0.0.1 is a secure context).
async function clipboardPage(browser) {
  const tracked = await trackedPage(browser);
  await tracked.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  return tracked;
}

const clipboard = (page) => page.evaluate(() => navigator.clipboard.readText());

// The one password the card shows, after the copy button copied it.
async function copyShownPassword(page) {
  const card = page.locator('.password-card');
  await card.waitFor();
  expect(/shown only now and will not be shown again/.test(await card.textContent()), 'the card says it is shown once');
  const password = (await card.locator('code').textContent()).trim();
  expect(/^[A-Za-z0-9]{16}$/.test(password), `a generated password: ${password}`);
  await card.getByRole('button', { name: 'Copy the password' }).click();
  await card.getByText('Copied').waitFor();
  expect(await clipboard(page) === password, 'the clipboard holds the password');
  return password;
}

async function addAccount(page, name, role) {
  await page.getByLabel('Login name').fill(name);
  await page.getByLabel('Role').selectOption(role);
  await page.getByRole('button', { name: 'Add the account' }).click();
}

async function journeys(browser, admin) {
  const { page, problems } = await clipboardPage(browser);
  let ivyPassword = '';
  let annPassword = '';

  await check('the admin\'s temporary password leads only to the password page', async () => {
    await login(page, 'admin', admin, { landing: 'Change your password' });
    await page.goto(`${base}/instructor`);
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    await changePassword(page, admin, 'admin-password-1');
  });
  await check('the admin adds an instructor and sees the password once, with a copy button that works', async () => {
    await page.getByRole('link', { name: 'Class' }).click();
    await addAccount(page, 'ivy', 'instructor');
    ivyPassword = await copyShownPassword(page);
    await page.locator('.account-list').getByRole('row', { name: /^ivy ivy instructor/ }).waitFor(); // the table was reloaded...
    await page.waitForTimeout(500);
    expect(await page.locator('.password-card').count() === 1, '... and the card is still there');
    await shot(page, 'accounts-password-card');
  });

  const ivy = await clipboardPage(browser);
  await check('the instructor logs in with it and must choose a password first', async () => {
    await login(ivy.page, 'ivy', ivyPassword, { landing: 'Change your password' });
    await ivy.page.getByText('Your password was made for you').waitFor();
    await changePassword(ivy.page, ivyPassword, 'ivy-password-1');
  });
  await check('the instructor adds a student and copies the password shown', async () => {
    await ivy.page.getByRole('link', { name: 'Class' }).click();
    expect(await ivy.page.locator('#new-role option[value=admin]').count() === 0, 'an instructor is offered no admin role');
    await addAccount(ivy.page, 'kim', 'student');
    await copyShownPassword(ivy.page);
  });
  await check('the instructor imports pasted CSV and sees every password, to copy or download', async () => {
    await ivy.page.getByLabel('or the CSV text').fill('name,display_name,role\nann,"Lee, Ann",\nbob,,student\ncy,Cy Young,\n');
    await ivy.page.getByRole('button', { name: 'Import the accounts' }).click();
    const card = ivy.page.locator('.password-card');
    await card.getByRole('heading', { name: '3 accounts created' }).waitFor();
    const rows = await card.locator('tbody tr').allTextContents();
    expect(rows.length === 3 && rows[0].startsWith('annLee, Ann') && rows[1].startsWith('bobbob'), `the rows: ${rows}`);
    annPassword = (await card.locator('tbody tr').first().locator('code').textContent()).trim();
    await card.getByRole('button', { name: 'Copy all' }).click();
    await card.getByText('Copied').waitFor();
    const copied = await clipboard(ivy.page);
    expect(copied.startsWith(`name,password\nann,${annPassword}\nbob,`) && copied.split('\n').length === 5, `the clipboard: ${copied}`);
    const [download] = await Promise.all([ivy.page.waitForEvent('download'),
      card.getByRole('button', { name: 'Download as CSV' }).click()]);
    expect(download.suggestedFilename() === 'accounts.csv', `the file's name: ${download.suggestedFilename()}`);
    expect(readFileSync(await download.path(), 'utf8') === copied, 'the download is the same CSV');
    await ivy.page.locator('.account-list').getByRole('cell', { name: 'Lee, Ann' }).waitFor();
    await shot(ivy.page, 'accounts-import');
  });
  await check('a file with bad lines is refused line by line, and nothing is created', async () => {
    await ivy.page.getByLabel('A .csv file').setInputFiles({
      name: 'class.csv', mimeType: 'text/csv',
      buffer: Buffer.from('name,display_name,role\ndan,Dan,\nann,,\nEve,,\nfay,,admin\n'),
    });
    await ivy.page.getByRole('button', { name: 'Import the accounts' }).click();
    const listed = ivy.page.locator('.import-problems li');
    await listed.first().waitFor();
    const lines = await listed.allTextContents();
    expect(lines.length === 3 && lines[0].startsWith("Line 3: there is already a user 'ann'") &&
      lines[1].startsWith("Line 4: 'Eve' is not a login name") && lines[2].startsWith('Line 5: only an admin'),
    `the problems: ${lines}`);
    expect(await ivy.page.locator('.account-list').getByRole('cell', { name: 'dan', exact: true }).count() === 0, 'dan was not created');
    await shot(ivy.page, 'accounts-import-problems');
  });

  const ann = await trackedPage(browser);
  await check('an imported student logs in with the password shown, changes it, and lands on the exercises', async () => {
    await login(ann.page, 'ann', annPassword, { landing: 'Change your password' });
    await ann.page.goto(`${base}/submissions`);
    await ann.page.getByRole('heading', { name: 'Change your password' }).waitFor();
    await changePassword(ann.page, annPassword, 'ann-own-password');
    await ann.page.getByText('Your password is changed').waitFor();
    expect(ann.page.url() === `${base}/`, `on the exercises: ${ann.page.url()}`);
  });

  const sam = await trackedPage(browser);
  await check('an ordinary user changes their password from the menu and logs in with it', async () => {
    await addStudent('sam', 'sam-password');
    await login(sam.page, 'sam', 'sam-password');
    await sam.page.locator('#who').getByRole('link', { name: 'Password' }).click();
    await sam.page.getByRole('heading', { name: 'Change your password' }).waitFor();
    expect(await sam.page.getByText('Your password was made for you').count() === 0, 'no word of a forced change');
    await shot(sam.page, 'password-from-menu');
    await changePassword(sam.page, 'sam-password', 'sam-password-2');
    await sam.page.getByRole('button', { name: 'Log out' }).click();
    await sam.page.getByRole('heading', { name: 'Log in' }).waitFor();
    await sam.page.getByLabel('Name').fill('sam');
    await sam.page.getByLabel('Password').fill('sam-password');
    await sam.page.getByRole('button', { name: 'Log in' }).click();
    await sam.page.getByText('wrong name or password').waitFor();
    await login(sam.page, 'sam', 'sam-password-2');
  });

  await check('no page logged an error', async () => {
    // the refused file earns one 422 on purpose, the wrong password one 401
    const all = [...problems, ...ivy.problems.filter((p) => !/status of 422/.test(p)), ...ann.problems,
      ...sam.problems.filter((p) => !/status of 401/.test(p))];
    expect(all.length === 0, all.join('\n'));
  });
}

runBrowserTests(import.meta.url, [journeys]);
