// The explorer's only way to the API: GET /api/public/... with the key the
// person typed, as `Authorization: Bearer`, through a cache that spares the
// key's budget:
//
// - every answer is kept with its ETag (in memory and sessionStorage, so a
//   reload reuses it too); within its freshness (maxAge) it is reused with no
//   request at all, after it the request carries If-None-Match and a 304
//   reuses the kept body;
// - two calls for the same URL at once share one request;
// - the budget comes from the free GET /api/public/rate_limit, and between
//   two reads of it from the X-RateLimit-* headers of every answer (and from
//   those alone when the server has no rate_limit route).
//
// Errors come back as ApiError with a kind the page turns into a message.
//
// stream() reads the live stream of vote counts (Server-Sent Events over
// fetch); live.js keeps one open for the flag on screen.

const STORE = 'flagpole.key';
const CACHE = 'flagpole.cache.v1';
const CACHE_ENTRIES = 40;

export function getKey() {
  try { return localStorage.getItem(STORE) || ''; } catch { return ''; }
}

export function setKey(key) {
  try {
    if (key) localStorage.setItem(STORE, key);
    else localStorage.removeItem(STORE);
  } catch { /* storage off: the key lives until the page closes */ }
  budget.value = null;
  budget.noRoute = false;
  keyChecked = false;
}

// Until the server has answered a request with this key, nothing comes from
// the cache: the first request after opening the page or changing the key
// goes out (with If-None-Match), so a wrong key shows at once.
let keyChecked = false;

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

// ---------- the budget ----------

// budget.value: {limit, remaining, reset (Unix seconds), at (ms), source}
const budget = { value: null, noRoute: false, listeners: [], timer: 0, inflight: null };

export function onQuota(f) { budget.listeners.push(f); }
export function quota() { return budget.value; }

function setBudget(v) {
  budget.value = { ...v, at: Date.now() };
  for (const f of budget.listeners) f(budget.value);
  // When the window frees a request again, read the budget anew (for free).
  clearTimeout(budget.timer);
  if (v.remaining < v.limit && v.reset) {
    const wait = Math.max(1000, v.reset * 1000 - Date.now() + 250);
    if (wait < 120_000) budget.timer = setTimeout(() => { refreshQuota(); }, wait);
  }
}

function budgetFromHeaders(res, source) {
  const limit = parseInt(res.headers.get('X-RateLimit-Limit'), 10);
  const remaining = parseInt(res.headers.get('X-RateLimit-Remaining'), 10);
  const reset = parseInt(res.headers.get('X-RateLimit-Reset'), 10);
  if (Number.isFinite(limit) && Number.isFinite(remaining)) {
    setBudget({ limit, remaining, reset: Number.isFinite(reset) ? reset : 0, source });
  }
}

// refreshQuota reads GET /api/public/rate_limit, which spends nothing. On a
// server without that route (404) it gives up for this key and the budget
// is told by the headers of the last answer only.
export function refreshQuota() {
  const key = getKey();
  if (!key || budget.noRoute || document.hidden) return Promise.resolve(budget.value);
  if (budget.inflight) return budget.inflight;
  budget.inflight = (async () => {
    try {
      const res = await fetch('/api/public/rate_limit', {
        headers: { Authorization: 'Bearer ' + key, Accept: 'application/json' }, cache: 'no-store',
      });
      if (res.status === 404) { budget.noRoute = true; return budget.value; }
      if (!res.ok) return budget.value;
      const b = await res.json();
      if (Number.isFinite(b.limit) && Number.isFinite(b.remaining)) {
        setBudget({ limit: b.limit, remaining: b.remaining, reset: b.reset || 0, source: 'rate_limit' });
      } else {
        budgetFromHeaders(res, 'rate_limit');
      }
    } catch { /* offline: the next answer tells */ } finally {
      budget.inflight = null;
    }
    return budget.value;
  })();
  return budget.inflight;
}

document.addEventListener('visibilitychange', () => { if (!document.hidden && budget.value) refreshQuota(); });

// ---------- the cache ----------

// entries: url -> {etag, body, at (ms when last confirmed)}
const entries = new Map();
(function restore() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(CACHE) || '[]');
    for (const [url, e] of saved) entries.set(url, e);
  } catch { /* none or unreadable: start empty */ }
}());

let saveTimer = 0;
function persist() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    const keep = [...entries].slice(-CACHE_ENTRIES);
    for (let n = keep.length; n > 0; n = Math.floor(n / 2)) {
      try { sessionStorage.setItem(CACHE, JSON.stringify(keep.slice(-n))); return; } catch { /* too big: keep fewer */ }
    }
    try { sessionStorage.removeItem(CACHE); } catch { /* storage off */ }
  }, 50);
}

function remember(url, e) {
  entries.delete(url); // re-insert: the Map keeps the most recent last
  entries.set(url, e);
  while (entries.size > CACHE_ENTRIES * 2) entries.delete(entries.keys().next().value);
  persist();
}

// cached answers the kept body for path and params when it is younger than
// maxAge (ms), without a request; undefined otherwise.
export function cached(path, params = {}, maxAge = Infinity) {
  const e = entries.get(apiURL(path, params));
  return e && Date.now() - e.at <= maxAge ? e.body : undefined;
}

function apiURL(path, params) {
  const url = new URL('/api/public/' + path, location.origin);
  const keys = Object.keys(params).sort();
  for (const k of keys) {
    const v = params[k];
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  return url.pathname + url.search;
}

const inflight = new Map();

// api answers /api/public/{path} with params (empty values left out) as
// decoded JSON: from the cache while it is younger than maxAge (ms; 0 asks
// the server, with If-None-Match when there is a kept copy).
export function api(path, params = {}, { signal, maxAge = 30_000 } = {}) {
  const key = getKey();
  if (!key) return Promise.reject(new ApiError('nokey'));
  const url = apiURL(path, params);
  const kept = entries.get(url);
  if (keyChecked && kept && Date.now() - kept.at <= maxAge) return Promise.resolve(kept.body);
  let p = inflight.get(url);
  if (!p) {
    p = send(url, key, kept).finally(() => inflight.delete(url));
    inflight.set(url, p);
  }
  if (!signal) return p;
  // A caller that gives up does not cancel the request for the others.
  return new Promise((resolve, reject) => {
    const abort = () => reject(new DOMException('aborted', 'AbortError'));
    if (signal.aborted) { abort(); return; }
    signal.addEventListener('abort', abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

async function send(url, key, kept) {
  const headers = { Authorization: 'Bearer ' + key, Accept: 'application/json' };
  if (kept && kept.etag) headers['If-None-Match'] = kept.etag;
  let res;
  try {
    // no-store: this cache, not the browser's, decides what is sent.
    res = await fetch(url, { headers, cache: 'no-store' });
  } catch {
    throw new ApiError('network');
  }
  budgetFromHeaders(res, 'headers');
  if (res.status !== 401 && key === getKey()) keyChecked = true;
  if (res.status === 304 && kept) {
    remember(url, { ...kept, at: Date.now() });
    return kept.body;
  }
  if (res.ok) {
    const body = await res.json();
    const etag = res.headers.get('ETag');
    remember(url, { etag, body, at: Date.now() });
    return body;
  }

  const err = await refusal(res);
  if (err.kind === 'ratelimited' && budget.value) {
    setBudget({ ...budget.value, remaining: 0, reset: Math.floor(Date.now() / 1000) + err.retryAfter });
  }
  throw err;
}

// refusal reads an answer that is not 2xx (or 304) as an ApiError.
async function refusal(res) {
  let problem = {};
  try { problem = await res.json(); } catch { /* not JSON */ }
  const detail = problem.detail || res.statusText;
  const retryAfter = Math.max(1, parseInt(res.headers.get('Retry-After'), 10) || 1);
  switch (res.status) {
    case 401: {
      const challenge = res.headers.get('WWW-Authenticate') || '';
      return new ApiError(challenge.includes('invalid_token') ? 'badkey' : 'nokey', { status: 401, detail });
    }
    case 404:
      return new ApiError('notfound', { status: 404, detail });
    case 429:
      return new ApiError('ratelimited', { status: 429, detail, retryAfter, limit: budget.value ? budget.value.limit : 0 });
    case 503:
      return new ApiError('unavailable', { status: 503, detail, retryAfter });
    default:
      return new ApiError('http', { status: res.status, detail });
  }
}

// keep puts body in the cache as the answer of path (params none) now, with
// no ETag: what a live event told is newer than the kept answer, and the next
// request past maxAge asks for the whole answer again.
export function keep(path, body) {
  remember(apiURL(path, {}), { etag: '', body, at: Date.now() });
}

// ---------- the live stream ----------

// stream reads GET /api/public/stream with params (empty values left out)
// as Server-Sent Events, read from fetch's body (an EventSource cannot send
// Authorization): onOpen() once the server has answered 200, then
// onEvent({type, data, id}) for each event (data parsed as JSON when it
// is; id the stream's last event id so far), onRetry(ms) for a retry: line
// and onBeat() for anything read, comments (the server's pings) included.
// It resolves when the server closes the body, rejects with an ApiError
// when the stream is refused (no budget change on a 429: the key's bound of
// streams is not its budget), with AbortError when signal aborts, and with
// ApiError('network') when the connection drops.
export async function stream(params, { signal, onOpen, onEvent, onRetry, onBeat } = {}) {
  const key = getKey();
  if (!key) throw new ApiError('nokey');
  let res;
  try {
    res = await fetch(apiURL('stream', params), {
      headers: { Authorization: 'Bearer ' + key, Accept: 'text/event-stream' }, cache: 'no-store', signal,
    });
  } catch (err) {
    if (signal && signal.aborted) throw err;
    throw new ApiError('network');
  }
  budgetFromHeaders(res, 'headers');
  if (!res.ok || !res.body) throw await refusal(res);
  if (onOpen) onOpen();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const sse = { type: '', data: [], id: '' };
  let rest = '';
  const line = (l) => {
    if (l === '') { // the end of an event
      if (sse.data.length && onEvent) {
        const raw = sse.data.join('\n');
        let data = raw;
        try { data = JSON.parse(raw); } catch { /* not JSON: the text */ }
        onEvent({ type: sse.type || 'message', data, id: sse.id });
      }
      sse.type = '';
      sse.data = [];
      return;
    }
    if (l[0] === ':') return; // a comment: a ping
    const colon = l.indexOf(':');
    const field = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'event') sse.type = value;
    else if (field === 'data') sse.data.push(value);
    else if (field === 'id' && !value.includes('\0')) sse.id = value;
    else if (field === 'retry' && /^\d+$/.test(value) && onRetry) onRetry(+value);
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (onBeat) onBeat();
      rest += value;
      // Lines end at \r\n, \n or \r; a \r at the end may be half of a \r\n.
      const parts = rest.split(/\r\n|\n|\r(?!$)/);
      rest = parts.pop();
      for (const l of parts) line(l);
    }
  } catch (err) {
    if (signal && signal.aborted) throw err;
    throw new ApiError('network');
  } finally {
    reader.releaseLock();
  }
}
