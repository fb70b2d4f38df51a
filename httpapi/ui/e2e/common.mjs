// Helpers that run.mjs and docs.mjs share: waiting, failing a check, a
// free port, and the environment a server is started with.
import net from 'node:net';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Failure is a check that did not hold (as opposed to a crash).
export class Failure extends Error {}

export function check(cond, msg) {
  if (!cond) throw new Failure(msg);
}

export async function waitFor(what, f, timeoutMs, everyMs = 250) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Failure(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(everyMs);
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// cleanEnv is this process's environment without FLAGPOLE_* settings, so
// the server runs with the defaults whatever the shell has set.
export function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FLAGPOLE_')));
}
