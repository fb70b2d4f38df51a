// Tests of follow.ts against scripted servers on the loopback: node --test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { follow, RefusedError, RevokedError, type StreamEvent } from "./follow.js";

type Turn = (req: IncomingMessage, res: ServerResponse) => void;

// script serves the n-th request with the n-th turn (503 past the last) and
// records each request's Last-Event-ID, query and Authorization.
async function script(...turns: Turn[]): Promise<{ url: string; asked: string[]; close: () => void }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    const n = asked.length;
    asked.push(`${req.headers["last-event-id"] ?? ""} ${new URL(req.url ?? "/", "http://x").search} ${req.headers.authorization}`);
    const turn = turns[n];
    if (turn) turn(req, res);
    else res.writeHead(503, { "Retry-After": "1" }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, asked, close: () => server.close() };
}

const events = (body: string): Turn => (_req, res) => {
  res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8" }).end(body);
};

const votes = `{"at":"2026-11-29T01:46:02.117Z","flags":[{"slug":"a","votes":{"red":2,"green":1,"total":3,"net":1},"dominant":"red"}]}`;

// run follows until `stop` events arrived, and returns their lines.
async function run(url: string, stop: number, slugs?: string[]): Promise<string[]> {
  const got: string[] = [];
  const ctl = new AbortController();
  await follow({
    baseUrl: url,
    key: "grf_test",
    slugs,
    signal: ctl.signal,
    onEvent(ev: StreamEvent) {
      got.push(`${ev.type} ${ev.id}${ev.votes ? ` ${ev.votes.flags[0]?.slug}=${ev.votes.flags[0]?.votes.red}` : ""}${ev.end ? ` ${ev.end.reason}` : ""}`);
      if (got.length === stop) ctl.abort();
    },
  });
  return got;
}

test("a closed stream is opened again after the server's retry, from its last event", async () => {
  const s = await script(
    events("retry: 20\n\nid: s1-1\nevent: ready\ndata: {}\n\n: ping\n\nid: s1-2\nevent: votes\ndata: " + votes + "\n\n"),
    events("event: resync\r\ndata: {}\r\n\r\nid: s2-9\revent: ready\rdata: {}\r\r"),
  );
  try {
    const got = await run(s.url, 4, ["a", "b"]);
    assert.deepEqual(got, ["ready s1-1", "votes s1-2 a=2", "resync s1-2", "ready s2-9"]);
    assert.deepEqual(s.asked, [" ?slug=a%2Cb Bearer grf_test", "s1-2 ?slug=a%2Cb Bearer grf_test"]);
  } finally {
    s.close();
  }
});

test("an end with reason revoked stops with RevokedError; another reason reconnects", async () => {
  const s = await script(
    events('retry: 10\n\nid: x-1\nevent: ready\ndata: {}\n\nevent: end\ndata: {"reason":"moved"}\n\n'),
    events('id: x-2\nevent: ready\ndata: {}\n\nevent: end\ndata: {"reason":"revoked"}\n\n'),
  );
  try {
    const got: string[] = [];
    await assert.rejects(
      follow({ baseUrl: s.url, key: "k", onEvent: (ev) => void got.push(`${ev.type} ${ev.end?.reason ?? ev.id}`) }),
      RevokedError,
    );
    assert.deepEqual(got, ["ready x-1", "end moved", "ready x-2", "end revoked"]);
    assert.equal(s.asked.length, 2);
  } finally {
    s.close();
  }
});

test("a 401 is refused at once, with its problem", async () => {
  const s = await script((_req, res) => {
    res.writeHead(401, { "Content-Type": "application/problem+json" });
    res.end('{"type":"about:blank","title":"Unauthorized","status":401,"detail":"no","code":"unauthorized"}');
  });
  try {
    await assert.rejects(
      follow({ baseUrl: s.url, key: "k", onEvent: () => {} }),
      (err: unknown) => err instanceof RefusedError && err.status === 401 && err.problem?.code === "unauthorized",
    );
    assert.equal(s.asked.length, 1);
  } finally {
    s.close();
  }
});

test("an error thrown by onEvent ends the follow with it", async () => {
  const s = await script(events("id: e-1\nevent: ready\ndata: {}\n\n"));
  try {
    await assert.rejects(
      follow({ baseUrl: s.url, key: "k", onEvent: () => { throw new TypeError("the handler's own"); } }),
      /the handler's own/,
    );
  } finally {
    s.close();
  }
});

test("a silent stream is dropped after the idle bound and opened again", async () => {
  const s = await script(
    (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write("retry: 10\n\nid: z-1\nevent: ready\ndata: {}\n\n"); // then silence
    },
    events("id: z-2\nevent: ready\ndata: {}\n\n"),
  );
  try {
    const got: string[] = [];
    const ctl = new AbortController();
    await follow({
      baseUrl: s.url, key: "k", idleMs: 100, signal: ctl.signal,
      onEvent(ev) {
        got.push(`${ev.type} ${ev.id}`);
        if (got.length === 2) ctl.abort();
      },
    });
    assert.deepEqual(got, ["ready z-1", "ready z-2"]);
    assert.equal(s.asked[1]?.split(" ")[0], "z-1");
  } finally {
    s.close();
  }
});
