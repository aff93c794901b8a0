// The REST API as the pages use it: JSON in and out, the session cookie
// sent along, the session's CSRF token on every state change, a 401 while
// signed in turned into the "session expired" note, and a 403
// password_change_required into a visit to the password page.

const state = { csrf: null, onExpired: () => {}, onPasswordChange: () => {} };

export class ApiError extends Error {
  constructor(status, code, message, lines = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.lines = lines; // a refused file's problems: [{line, problem}]
  }
}

export function setCsrf(token) {
  state.csrf = token || null;
}

export function onSessionExpired(callback) {
  state.onExpired = callback;
}

export function onPasswordChangeRequired(callback) {
  state.onPasswordChange = callback;
}

// api('GET', '/api/v1/me') -> the JSON answer; throws ApiError otherwise.
// A body is sent as JSON, or as it is with another contentType ('text/csv').
export async function api(method, path, body, { quiet401 = false, headers: extra = {}, contentType = 'application/json' } = {}) {
  const headers = { Accept: 'application/json', ...extra };
  if (body !== undefined) headers['Content-Type'] = contentType;
  if (method !== 'GET' && state.csrf) headers['X-CSRF-Token'] = state.csrf;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined || contentType !== 'application/json' ? body : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, 'unreachable', 'The server cannot be reached: check your connection.');
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (e) {
    json = null;
  }
  if (response.ok) return json;
  const error = (json && json.error) || {};
  if (response.status === 401 && !quiet401) state.onExpired();
  if (response.status === 403 && error.code === 'password_change_required') state.onPasswordChange();
  throw new ApiError(response.status, error.code || 'http_' + response.status,
    error.message || `The server answered ${response.status}.`, error.lines || []);
}
