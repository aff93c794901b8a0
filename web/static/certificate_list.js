// Every certificate issued (instructors, /instructor/certificates): the
// student, the course's title as signed, the date, valid or revoked (with
// the reason), a link to its public page, and Revoke.

import { api } from './api.js';
import { fill, formatDate, h, link, table } from './dom.js';
import { forInstructors } from './instructor.js';
import { revokeControl } from './revoke.js';

function statusOf(c) {
  if (!c.revoked) return h('span', { class: 'certificate-state valid' }, 'valid');
  return h('span', { class: 'certificate-state revoked' }, `revoked on ${formatDate(c.revoked_at)}: ${c.revoked_reason || 'no reason given'}`);
}

function certificateRow(c, redraw) {
  const course = c.course_title || c.course;
  return h('tr', {},
    h('th', { scope: 'row' }, link(`/instructor/students/${c.user}`, c.display_name), h('span', { class: 'login' }, ` (${c.user})`)),
    h('td', {}, course),
    h('td', {}, formatDate(c.issued_at)),
    h('td', {}, statusOf(c)),
    h('td', {}, link(`/certificates/${c.id}`, c.id)),
    h('td', {}, c.revoked ? null : revokeControl({ id: c.id, student: c.display_name, course }, redraw)));
}

export async function showCertificates(session) {
  if (!forInstructors(session)) return;
  const main = document.getElementById('main');
  async function draw() {
    const { certificates } = await api('GET', '/api/v1/certificates?all=true');
    fill(main, h('h1', {}, 'Certificates'), h('p', {}, link('/instructor', 'Back to the class')),
      certificates.length
        ? table(['Student', 'Course', 'Issued', 'Status', 'Certificate', ''], certificates.map((c) => certificateRow(c, draw)),
          `${certificates.length} certificate${certificates.length === 1 ? '' : 's'} issued, newest first`)
        : h('p', {}, 'No certificate issued yet: one is issued when a student passes every assessment of a course.'));
  }
  await draw();
}
