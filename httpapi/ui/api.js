// The explorer's only way to the API: GET /api/public/... with the key the
// person typed, as `Authorization: Bearer`. Errors come back as ApiError
// with a kind the page turns into a message.

const STORE = 'flagpole.key';

export function getKey() {
  try { return localStorage.getItem(STORE) || ''; } catch { return ''; }
}

export function setKey(key) {
  try {
    if (key) localStorage.setItem(STORE, key);
    else localStorage.removeItem(STORE);
  } catch { /* storage off: the key lives until the page closes */ }
}

// ApiError.kind: nokey (no key typed or none sent), badkey (401, unknown or
// revoked), ratelimited (429, retryAfter seconds), unavailable (503,
// retryAfter), notfound (404), network (no answer), http (anything else).
export class ApiError extends Error {
  constructor(kind, { status = 0, detail = '', retryAfter = 0, limit = 0 } = {}) {
    super(detail || kind);
    this.kind = kind;
    this.status = status;
    this.detail = detail;
    this.retryAfter = retryAfter;
    this.limit = limit;
  }
}

const quotaListeners = [];
export function onQuota(f) { quotaListeners.push(f); }

// api fetches /api/public/{path} with params (empty values left out) and
// returns the decoded JSON body.
export async function api(path, params = {}, { signal } = {}) {
  const key = getKey();
  if (!key) throw new ApiError('nokey');
  const url = new URL('/api/public/' + path, location.origin);
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  let res;
  try {
    res = await fetch(url, {
      headers: { Authorization: 'Bearer ' + key, Accept: 'application/json' },
      signal,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError('network');
  }
  const limit = parseInt(res.headers.get('X-RateLimit-Limit'), 10);
  const remaining = parseInt(res.headers.get('X-RateLimit-Remaining'), 10);
  if (Number.isFinite(limit) && Number.isFinite(remaining)) {
    for (const f of quotaListeners) f({ limit, remaining });
  }
  if (res.ok) return res.json();

  let problem = {};
  try { problem = await res.json(); } catch { /* not JSON */ }
  const detail = problem.detail || res.statusText;
  const retryAfter = Math.max(1, parseInt(res.headers.get('Retry-After'), 10) || 1);
  switch (res.status) {
    case 401: {
      const challenge = res.headers.get('WWW-Authenticate') || '';
      throw new ApiError(challenge.includes('invalid_token') ? 'badkey' : 'nokey', { status: 401, detail });
    }
    case 404:
      throw new ApiError('notfound', { status: 404, detail });
    case 429:
      throw new ApiError('ratelimited', { status: 429, detail, retryAfter, limit: Number.isFinite(limit) ? limit : 0 });
    case 503:
      throw new ApiError('unavailable', { status: 503, detail, retryAfter });
    default:
      throw new ApiError('http', { status: res.status, detail });
  }
}
