// The real `git http-backend` behind the test's HTTP front, in a process of its own: a benchmark that serves a
// repository from its own process would charge the bot, which shares that event loop, for passing the server's
// bytes along, as a remote host like GitHub never does. Prints the server's address as one line of JSON, serves
// until its standard input closes or it is told to stop, then closes the server.
//
//   tsx bench/lib/serve-git.ts ROOT TOKEN [BYTES_PER_SECOND]
import { startGitServer } from "../../test/support/git-server.js";

const [root, token, rate] = process.argv.slice(2);
if (!root || !token || (rate !== undefined && !/^[1-9]\d*$/.test(rate))) {
  console.error("usage: tsx bench/lib/serve-git.ts ROOT TOKEN [BYTES_PER_SECOND]");
  process.exit(2);
}
const server = await startGitServer(root, { token, ...(rate && { bytesPerSecond: Number(rate) }) });
let closing = false;
const close = async () => {
  if (closing) return;
  closing = true;
  await server.close();
  process.exit(0);
};
process.stdin.on("end", close).resume();
process.on("SIGTERM", close);
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
