// Takes the README's screenshot of the exercise page (docs/exercise-page.png):
// logs in to a running kgrade, opens vector-add, submits a kernel with a
// compile error and photographs the result.
//
//   node docs/screenshot.mjs URL NAME PASSWORD

import { createRequire } from 'node:module';

const require = createRequire(new URL('../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const [base, name, password] = process.argv.slice(2);

const kernel = `__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[j];
}
`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
await page.goto(`${base}/login`);
await page.getByLabel('Name').fill(name);
await page.getByLabel('Password').fill(password);
await page.getByRole('button', { name: 'Log in' }).click();
await page.getByRole('heading', { name: 'Exercises' }).waitFor();
await page.goto(`${base}/exercises/vector-add`);
await page.locator('.cm-content').click();
await page.keyboard.press('ControlOrMeta+a');
await page.keyboard.press('Delete');
await page.keyboard.insertText(kernel);
await page.getByRole('button', { name: 'Submit' }).click();
await page.locator('.result .verdict').waitFor({ timeout: 120000 });
await page.mouse.move(0, 0);
await page.screenshot({ path: new URL('exercise-page.png', import.meta.url).pathname });
await browser.close();
