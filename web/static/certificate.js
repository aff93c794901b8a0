// A certificate's public page: printable (course, name, date, the
// assessments with their ratios), with the server's check of its signature
// said plainly (VALID, or REVOKED with the reason), and how anyone can
// verify it without trusting this page.

import { api } from './api.js';
import { fill, formatDate, h } from './dom.js';
import { formatRatio } from './format.js';
import { revokeControl } from './revoke.js';

// A signed ratio (a string) as people read it. kgrade-certificate/2 signs
// three significant figures ("0.00484"); /1, issued before, signed two
// decimals, where "0.00" meant under 0.005. As server/certificate.c says it.
export function certificateRatio(format, ratio) {
  const value = Number(ratio);
  if (format === 'kgrade-certificate/2' && ratio !== '' && Number.isFinite(value)) return formatRatio(value);
  if (ratio !== '' && value === 0) return 'under 0.005×, over 200× faster than the reference';
  return `${ratio}×`;
}

function verdictOf(c) {
  if (c.revoked) return h('p', { class: 'certificate-status revoked', role: 'status' }, 'REVOKED',
    h('span', {}, ` on ${formatDate(c.revoked_at)}: ${c.revoked_reason || 'no reason given'}`));
  if (!c.signature_valid) return h('p', { class: 'certificate-status revoked', role: 'status' }, 'NOT VALID',
    h('span', {}, ': its signature does not match its content'));
  return h('p', { class: 'certificate-status valid', role: 'status' }, 'VALID',
    h('span', {}, ': signed by this kgrade server, and not revoked'));
}

// Instructors revoke here (revoke.js asks first, naming student and course).
function revokeForm(session, c, p) {
  if (!session.user || session.user.role === 'student' || c.revoked) return null;
  return h('div', { class: 'verify-help' },
    revokeControl({ id: c.id, student: p.student, course: p.course.title }, () => showCertificate(session, c.id)));
}

export async function showCertificate(session, id) {
  const c = await api('GET', `/api/v1/certificates/${encodeURIComponent(id)}`);
  const p = JSON.parse(c.payload);
  fill(document.getElementById('main'),
    h('article', { class: 'certificate' },
      h('p', { class: 'certificate-kind' }, 'Certificate of competency'),
      h('h1', {}, p.course.title),
      h('p', { class: 'certificate-name' }, p.student),
      h('p', {}, `passed every assessment of the course; issued on ${p.issued_on}.`),
      h('table', {}, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Assessment'),
        h('th', { scope: 'col' }, 'Time, as a ratio to the reference'))),
      h('tbody', {}, p.assessments.map((a) => h('tr', {}, h('td', {}, a.exercise), h('td', {}, certificateRatio(p.format, a.ratio)))))),
      verdictOf(c),
      h('p', { class: 'certificate-id' }, `Certificate ${c.id}`)),
    revokeForm(session, c, p),
    h('section', { class: 'verify-help' }, h('h2', {}, 'Verify it yourself'),
      h('p', {}, 'The text below is exactly what was signed, with Ed25519, by the key this server publishes at ',
        h('code', {}, '/api/v1/certificates/public-key'), '. Save this certificate\'s JSON and run'),
      h('pre', {}, `curl -s ${location.origin}/api/v1/certificates/${c.id} > certificate.json\n` +
        `kgrade cert verify certificate.json --public-key ${c.public_key}`),
      h('p', {}, 'or check the signature with any Ed25519 library over these bytes:'),
      h('details', {}, h('summary', {}, 'The signed payload and its signature'),
        h('pre', { class: 'copy' }, c.payload), h('pre', { class: 'copy' }, c.signature)),
      h('p', {}, h('button', { type: 'button', onclick: () => window.print() }, 'Print'))));
}
