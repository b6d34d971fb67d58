// A process that makes a real checkout with withShallowClone and holds it until killed, as an app killed mid-job
// does. Run with `node --import tsx test/support/hold-checkout.ts <clone url> <token> <parent dir>`; it prints the
// checkout's folder once it exists.
import { withShallowClone } from "../../src/git/clone-repository.js";

const [url, token, parentDir] = process.argv.slice(2);
await withShallowClone(
  { url: url!, token: token! },
  "main",
  async (checkout) => {
    process.stdout.write(`${checkout.dir}\n`);
    // A timer keeps the process alive (a pending promise alone would not).
    await new Promise(() => setInterval(() => {}, 60_000));
  },
  { parentDir },
);
