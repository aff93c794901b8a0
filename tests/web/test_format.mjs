// Unit tests of the pages' numbers (web/static/format.js) against the table
// the C formatter is held to (tests/unit/number_text_cases.json), so the
// pages and the messages print every ratio and time alike; a ratio in the
// scoreboards' range never reads "0.00×"; and the certificate page reads
// both payload formats' ratios as `kgrade cert verify` does.
//
//   node tests/web/test_format.mjs

import { readFileSync } from 'node:fs';
import { certificateRatio } from '../../web/static/certificate.js';
import { formatMs, formatNumber, formatRatio } from '../../web/static/format.js';

const table = JSON.parse(readFileSync(new URL('../unit/number_text_cases.json', import.meta.url), 'utf8'));
const special = { nan: NaN, inf: Infinity, '-inf': -Infinity };
const formats = { number: formatNumber, ratio: formatRatio, ms: formatMs };
let passed = 0;
let failed = 0;

function check(name, got, want) {
  if (got === want) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${name}: "${got}", expected "${want}"`);
  }
}

for (const c of table.cases) {
  const x = typeof c.value === 'string' ? special[c.value] : c.value;
  for (const [field, format] of Object.entries(formats)) check(`${field} of ${c.value}`, format(x), c[field]);
}
check('no ratio, no text', formatRatio(null), '');
check('no time, no text', formatMs(undefined), '');
for (let r = 1e-7; r < 1.5; r *= 1.01) {
  const text = formatRatio(r);
  check(`${r} is not shown as zero`, text.startsWith('0×') || text.includes('0.00×'), false);
}
const certificates = [
  ['kgrade-certificate/2', '0.00484', '0.00484×, 207× faster than the reference'],
  ['kgrade-certificate/2', '1.03', '1.03×'],
  ['kgrade-certificate/1', '1.03', '1.03×'],
  ['kgrade-certificate/1', '0.90', '0.90×'],
  ['kgrade-certificate/1', '0.00', 'under 0.005×, over 200× faster than the reference'],
];
for (const [format, ratio, want] of certificates) check(`${format} ratio ${ratio}`, certificateRatio(format, ratio), want);
console.log(`test_format.mjs: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 60 ? 0 : 1);
