// Numbers people can read: ratios and times with three significant
// figures, so a kernel 207 times faster than the reference reads
// "0.00484×, 207× faster than the reference", never "0.00×" (issue 16).
// The twin of grader/number_text.c, which words the messages, the command
// line, the CSV and the certificates; tests/unit/number_text_cases.json
// holds both to the same answers (tests/web/test_format.mjs).

const SIGNIFICANT = 3;
const PLAIN_LOW = -6; // plain decimal for exponents in [PLAIN_LOW, PLAIN_HIGH)
const PLAIN_HIGH = 15;
// At most half the reference's time, a ratio also says how many times faster.
const RATIO_FASTER_AT = 0.5;

// The digits placed around the decimal point for `exponent`.
function plainDecimal(digits, exponent) {
  if (exponent < 0) return `0.${'0'.repeat(-exponent - 1)}${digits}`;
  if (exponent >= SIGNIFICANT - 1) return digits + '0'.repeat(exponent - (SIGNIFICANT - 1));
  return `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

// "0.00484", "1.00", "207", "12300"; "0"; "4.84e-7" far out; "nan", "inf".
export function formatNumber(x) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x < 0 ? '-inf' : 'inf';
  if (x === 0) return '0';
  const [mantissa, e] = Math.abs(x).toExponential(SIGNIFICANT - 1).split('e');
  const exponent = Number(e);
  const sign = x < 0 ? '-' : '';
  if (exponent < PLAIN_LOW || exponent >= PLAIN_HIGH) return `${sign}${mantissa}e${exponent < 0 ? '' : '+'}${exponent}`;
  return sign + plainDecimal(mantissa.replace('.', ''), exponent);
}

// "1.03×", or "0.00484×, 207× faster than the reference"; '' for no number.
export function formatRatio(ratio) {
  if (typeof ratio !== 'number') return '';
  const text = formatNumber(ratio);
  const shown = Number(text); // the wording follows what is printed
  return shown > 0 && shown <= RATIO_FASTER_AT ? `${text}×, ${formatNumber(1 / ratio)}× faster than the reference` : `${text}×`;
}

// Milliseconds in the unit that reads best: "335 µs", "12.3 ms", "1.23 s".
export function formatMs(ms) {
  if (typeof ms !== 'number') return '';
  const text = formatNumber(ms);
  const shown = Math.abs(Number(text)); // the unit follows what is printed
  if (Number.isFinite(ms) && shown !== 0 && shown < 1) return `${formatNumber(ms * 1e3)} µs`;
  if (Number.isFinite(ms) && shown >= 1000) return `${formatNumber(ms / 1e3)} s`;
  return `${text} ms`;
}
