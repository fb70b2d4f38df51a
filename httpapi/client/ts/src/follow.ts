// follow reads the live stream /api/public/stream with fetch and a streamed
// body (a browser's EventSource cannot send Authorization), hands each
// event over in order, and reconnects as the server asks: after its retry
// interval (the retry field, 2 s by default), or the answer's Retry-After
// when that is longer, doubling the wait for failed attempts in a row up
// to 30 s, with the last event's id as Last-Event-ID so that the server
// sends what was missed, or a resync event when it no longer can. It is
// the TypeScript twin of Follow in the Go package httpapi/client.
import type { components } from "./schema.js";

export type StreamVotes = components["schemas"]["StreamVotes"];
export type StreamEnd = components["schemas"]["StreamEnd"];
export type Problem = components["schemas"]["Problem"];

/** One event of the stream. `type` is ready, votes, resync, end, or a type
 * this code does not know yet. */
export interface StreamEvent {
  type: string;
  /** The stream's position after this event: sent as Last-Event-ID on a reconnect. */
  id: string;
  /** The event's data, one line of JSON. */
  data: string;
  votes?: StreamVotes;
  end?: StreamEnd;
}

export interface FollowOptions {
  baseUrl: string;
  key: string;
  /** The slugs to follow; all flags when absent. */
  slugs?: string[];
  /** Resume after this event id. */
  lastEventId?: string;
  /** Ends the follow: follow then resolves. */
  signal?: AbortSignal;
  /** A stream silent this long is taken as dead (default 45 s, three pings). */
  idleMs?: number;
  /** Called with each event, in order; a throw ends the follow with it. */
  onEvent: (event: StreamEvent) => void | Promise<void>;
}

/** The key was revoked: the server ended the stream and will refuse it. */
export class RevokedError extends Error {
  constructor() {
    super("the stream ended: its key was revoked");
  }
}

/** An answer another try cannot mend (a 4xx other than 429). */
export class RefusedError extends Error {
  constructor(readonly status: number, readonly problem?: Problem) {
    super(`the stream was refused: ${status}${problem ? ` ${problem.code}: ${problem.detail}` : ""}`);
  }
}

/** Carries an error thrown by onEvent out of the reading loop as it is. */
class HandlerError {
  constructor(readonly cause: unknown) {}
}

const MAX_EVENT = 64 << 20; // bytes of one event, its lines together
const RETRYABLE = new Set([429, 500, 502, 503, 504]);

export async function follow(opts: FollowOptions): Promise<void> {
  let lastId = opts.lastEventId ?? "";
  let retry = 2000;
  let failures = 0;
  while (!opts.signal?.aborted) {
    const o = await openOnce(opts, lastId);
    lastId = o.lastId;
    if (o.retry !== undefined) retry = o.retry;
    if (opts.signal?.aborted) return;
    let wait = retry;
    if (o.opened) {
      failures = 0;
    } else {
      failures++;
      wait = Math.min(retry * 2 ** (failures - 1), 30_000);
    }
    await sleep(Math.max(wait, o.retryAfterMs), opts.signal);
  }
}

interface Opening {
  opened: boolean;
  lastId: string;
  retry?: number;
  retryAfterMs: number;
}

async function openOnce(opts: FollowOptions, lastId: string): Promise<Opening> {
  const o: Opening = { opened: false, lastId, retryAfterMs: 0 };
  const conn = new AbortController();
  const idleMs = opts.idleMs ?? 45_000;
  let idle = setTimeout(() => conn.abort(), idleMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, conn.signal]) : conn.signal;
  const url = new URL("/api/public/stream", opts.baseUrl);
  if (opts.slugs?.length) url.searchParams.set("slug", opts.slugs.join(","));
  const headers: Record<string, string> = { Authorization: `Bearer ${opts.key}`, Accept: "text/event-stream" };
  if (lastId) headers["Last-Event-ID"] = lastId;
  try {
    const res = await fetch(url, { headers, signal });
    if (res.status !== 200 || !res.body) {
      if (RETRYABLE.has(res.status)) {
        const s = Number(res.headers.get("Retry-After"));
        if (Number.isInteger(s) && s > 0) o.retryAfterMs = Math.min(s, 3600) * 1000;
        await res.body?.cancel();
        return o;
      }
      let problem: Problem | undefined;
      try {
        problem = (await res.json()) as Problem;
      } catch {
        problem = undefined;
      }
      throw new RefusedError(res.status, problem);
    }
    o.opened = true;
    const parser = new EventParser(lastId);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return o;
      clearTimeout(idle);
      idle = setTimeout(() => conn.abort(), idleMs);
      for (const ev of parser.push(value)) {
        o.lastId = ev.id;
        if (parser.retry !== undefined) o.retry = parser.retry;
        try {
          await opts.onEvent(ev);
        } catch (err) {
          throw new HandlerError(err);
        }
        if (ev.type === "end") {
          if (ev.end?.reason === "revoked") throw new RevokedError();
          await reader.cancel();
          return o;
        }
      }
      if (parser.retry !== undefined) o.retry = parser.retry;
    }
  } catch (err) {
    if (err instanceof HandlerError) throw err.cause; // onEvent's own error ends the follow
    if (err instanceof RevokedError || err instanceof RefusedError) throw err;
    if (signal.aborted) return o; // ended from outside, or silent too long: reconnect
    if (err instanceof TypeError) return o; // fetch's network errors: reconnect
    throw err; // an event past the bound, or data that is not JSON
  } finally {
    clearTimeout(idle);
  }
}

/** EventParser reads text/event-stream as the HTML standard says: lines end
 * with CRLF, LF or CR, a blank line dispatches, comments are skipped, the
 * id is kept from event to event, retry is in milliseconds. */
class EventParser {
  retry?: number;
  private line = "";
  private skipLF = false;
  private started = false;
  private type = "";
  private data: string[] = [];
  private size = 0;

  constructor(private lastId: string) {}

  *push(chunk: string): Generator<StreamEvent> {
    for (const ch of chunk) {
      if (this.skipLF) {
        this.skipLF = false;
        if (ch === "\n") continue;
      }
      if (ch !== "\n" && ch !== "\r") {
        this.line += ch;
        if (this.size + this.line.length > MAX_EVENT) throw new Error("an event of the stream is larger than the bound set for one");
        continue;
      }
      this.skipLF = ch === "\r";
      let line = this.line;
      this.line = "";
      if (!this.started) {
        this.started = true;
        if (line.startsWith("\uFEFF")) line = line.slice(1);
      }
      const ev = this.apply(line);
      if (ev) yield ev;
    }
  }

  private apply(line: string): StreamEvent | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    this.size += line.length + 1;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (name) {
      case "event":
        this.type = value;
        break;
      case "data":
        this.data.push(value);
        break;
      case "id":
        if (!value.includes("\0")) this.lastId = value;
        break;
      case "retry":
        if (/^[0-9]+$/.test(value)) this.retry = Math.min(Number(value), 3_600_000);
        break;
    }
    return undefined;
  }

  private dispatch(): StreamEvent | undefined {
    const type = this.type || "message";
    const data = this.data;
    this.type = "";
    this.data = [];
    this.size = 0;
    if (data.length === 0) return undefined;
    const ev: StreamEvent = { type, id: this.lastId, data: data.join("\n") };
    if (type === "votes") ev.votes = JSON.parse(ev.data) as StreamVotes;
    if (type === "end") ev.end = JSON.parse(ev.data) as StreamEnd;
    return ev;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
