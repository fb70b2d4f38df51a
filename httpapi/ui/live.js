// One flag followed live: GET /api/public/stream?slug=SLUG, read by
// api.js's stream(), kept open while the flag is on screen.
//
// - One stream per page, whatever happens: follow() closes the one before
//   (a key may hold only a few streams at once, shared by every tab).
// - A dropped connection, an end event or a refusal (429, 503) is tried
//   again with a backoff: 1 s doubling to 30 s, never shorter than the
//   server's retry: line or Retry-After; a stream that stayed open 30 s
//   starts the backoff again from 1 s. Each try sends the last event id read
//   (lastEventId=), so the server sends what was missed, or resync.
// - It stops for good on end with reason revoked, on 401, 404 (a server
//   without the stream) and 400: the page just shows no live counts.
// - A hidden tab closes its stream, and opens it again (with the last id)
//   when it shows; no event for 45 s (the server pings every 15 s) counts as
//   a dropped connection.
// - The last event id read for each flag is kept for the page's life, so a
//   flag shown again picks up where it was left.
import { stream, ApiError } from './api.js';

const FIRST_WAIT = 1000;
const MAX_WAIT = 30_000;
const STEADY = 30_000; // ms open after which a drop starts the backoff again
const SILENCE = 45_000; // ms without a byte after which the stream is taken as dead
const KEEP_IDS = 50;

let current = null;
const lastIds = new Map(); // slug -> the last event id read while following it

// follow opens the live stream of slug and tells:
// - onVotes(item) for each votes event's entry of slug ({slug, votes, dominant});
// - onResync() when what is shown must be read again (resync, or the flag
//   was removed);
// - onState(state): 'connecting', 'live', 'paused' (tab hidden), 'retrying'
//   (waiting to try again), 'off' (stopped for good).
// It answers {close()}.
export function follow(slug, { onVotes, onResync, onState }) {
  if (current) current.close();
  let ctrl = null;
  let timer = 0;
  let watchdog = 0;
  let wait = FIRST_WAIT;
  let retryMs = 0;
  let openedAt = 0;
  let closed = false;
  let state = '';

  const setState = (s) => {
    if (s === state) return;
    state = s;
    onState(s);
  };

  const remember = (id) => {
    if (!id) return;
    lastIds.delete(slug);
    lastIds.set(slug, id);
    while (lastIds.size > KEEP_IDS) lastIds.delete(lastIds.keys().next().value);
  };

  const beat = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => { if (ctrl) ctrl.abort('silent'); }, SILENCE);
  };

  const event = ({ type, data, id }) => {
    switch (type) {
      case 'ready':
        remember(id);
        setState('live');
        break;
      case 'votes': {
        remember(id);
        const flags = data && Array.isArray(data.flags) ? data.flags : [];
        const mine = flags.find((f) => f && f.slug === slug && f.votes);
        if (mine) onVotes(mine);
        if (data && Array.isArray(data.removed) && data.removed.includes(slug)) onResync();
        break;
      }
      case 'resync':
        onResync();
        break;
      case 'end':
        if (data && data.reason === 'revoked') stop();
        break;
      default: // a type this page does not know: ignored
    }
  };

  // finish closes the stream for good.
  function finish() {
    closed = true;
    clearTimeout(timer);
    clearTimeout(watchdog);
    document.removeEventListener('visibilitychange', visible);
    if (ctrl) ctrl.abort();
    ctrl = null;
    if (current === handle) current = null;
  }

  function stop() {
    if (closed) return;
    finish();
    setState('off');
  }

  function later(atLeast = 0) {
    if (closed) return;
    if (openedAt && Date.now() - openedAt >= STEADY) wait = FIRST_WAIT;
    openedAt = 0;
    const ms = Math.max(wait, retryMs, atLeast);
    wait = Math.min(wait * 2, MAX_WAIT);
    setState('retrying');
    clearTimeout(timer);
    timer = setTimeout(open, ms);
  }

  async function open() {
    clearTimeout(timer);
    if (closed || ctrl) return;
    if (document.hidden) { setState('paused'); return; }
    ctrl = new AbortController();
    const signal = ctrl.signal;
    setState('connecting');
    try {
      await stream({ slug, lastEventId: lastIds.get(slug) }, {
        signal,
        onOpen: () => { openedAt = Date.now(); beat(); },
        onBeat: beat,
        onRetry: (ms) => { retryMs = Math.min(ms, MAX_WAIT); },
        onEvent: event,
      });
      clearTimeout(watchdog);
      if (ctrl && ctrl.signal === signal) ctrl = null;
      later(); // the server closed the stream (after an end event, or not)
    } catch (err) {
      clearTimeout(watchdog);
      if (ctrl && ctrl.signal === signal) ctrl = null;
      if (closed) return;
      if (signal.aborted) {
        if (signal.reason === 'silent') later();
        return; // closed for the tab's hiding: visible() opens it again
      }
      if (err instanceof ApiError && ['ratelimited', 'unavailable'].includes(err.kind)) {
        later(err.retryAfter * 1000);
      } else if (err instanceof ApiError && err.kind === 'network') {
        later();
      } else {
        stop(); // 400, 401, 404, no key: no live counts here
      }
    }
  }

  function visible() {
    if (closed) return;
    if (document.hidden) {
      clearTimeout(timer);
      clearTimeout(watchdog);
      if (ctrl) { ctrl.abort(); ctrl = null; }
      openedAt = 0;
      setState('paused');
    } else if (!ctrl) {
      open();
    }
  }
  document.addEventListener('visibilitychange', visible);

  const handle = { close() { if (!closed) finish(); } };
  current = handle;
  open();
  return handle;
}
