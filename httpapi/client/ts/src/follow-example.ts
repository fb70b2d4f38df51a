// Follows the live votes of some flags and prints one line per event, until
// it is stopped (Ctrl-C) or the key is revoked:
//
//   FLAGPOLE_KEY=grf_... node dist/follow-example.js [--url http://127.0.0.1:8080] [slug ...]
//
//   ready <id>
//   votes <slug> red <n> green <n>     (one line per flag of the event)
//   resync                             (events were missed for good: re-read what you show)
//   end <reason>                       (the server closes the stream; follow reconnects)
import { follow, RefusedError, RevokedError } from "./follow.js";

const args = process.argv.slice(2);
let baseUrl = "http://127.0.0.1:8080";
const slugs: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--url") baseUrl = args[++i] ?? baseUrl;
  else slugs.push(args[i]!);
}
const key = process.env.FLAGPOLE_KEY ?? "";

const stop = new AbortController();
process.on("SIGINT", () => stop.abort());
process.on("SIGTERM", () => stop.abort());

try {
  if (!key) throw new Error("set FLAGPOLE_KEY to an API key (flagpole serve --demo prints one)");
  await follow({
    baseUrl,
    key,
    slugs,
    signal: stop.signal,
    onEvent(ev) {
      switch (ev.type) {
        case "votes":
          for (const f of ev.votes?.flags ?? []) console.log(`votes ${f.slug} red ${f.votes.red} green ${f.votes.green}`);
          for (const s of ev.votes?.removed ?? []) console.log(`removed ${s}`);
          break;
        case "end":
          console.log(`end ${ev.end?.reason}`);
          break;
        case "ready":
          console.log(`ready ${ev.id}`);
          break;
        default:
          console.log(ev.type);
      }
    },
  });
} catch (err) {
  if (err instanceof RevokedError || err instanceof RefusedError) console.log(`stopped: ${err.message}`);
  else console.error("follow:", err instanceof Error ? err.message : err);
  process.exit(1);
}
