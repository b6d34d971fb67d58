// Runs the overlay scenario (see overlay-scenario.ts) in a work folder of its own under the temp folder, in the real
// bubblewrap, and prints what it came to as JSON: started as a user that is not root, the overlay is fuse-overlayfs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";
import { runOverlayScenario } from "./overlay-scenario.js";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-overlay-"));
try {
  process.stdout.write(`${JSON.stringify(await runOverlayScenario(work, bubblewrapForTests()))}\n`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
