// A process that starts a real Python language server on a checkout and holds it until killed, as a bot killed mid-job
// does. Run with `node --import tsx test/support/hold-language-server.ts <checkout> contained|uncontained`; it prints
// `{"temp": …}`, the server's temp folder, once the server has checked a file, or `{"why": …}` when it could not start.
import { LanguageServerError } from "../../src/language-servers/errors.js";
import { startLanguageServer } from "../../src/language-servers/start-language-server.js";

const [root, mode] = process.argv.slice(2);
try {
  const server = await startLanguageServer(
    root!,
    "python",
    { startMs: 60_000, requestMs: 60_000, memoryMb: 512 },
    { allowUncontained: mode === "uncontained" },
  );
  await server.diagnose("a.py", ["x = 1\n"]);
  process.stdout.write(`${JSON.stringify({ temp: server.temp })}\n`);
  // A timer keeps the process alive (a pending promise alone would not).
  await new Promise(() => setInterval(() => {}, 60_000));
} catch (error) {
  if (!(error instanceof LanguageServerError)) throw error;
  process.stdout.write(`${JSON.stringify({ why: error.message })}\n`);
}
