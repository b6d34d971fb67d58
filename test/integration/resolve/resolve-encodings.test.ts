import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startResolveRig, type ResolveRig } from "./run-resolve.js";
import { scriptGreeting, type DeveloperScript } from "./script-greeting.js";

const latin1 = (text: string): Buffer => Buffer.from(text, "latin1");
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** A Latin-1 file: "é" is the single byte E9, which is not UTF-8. */
const NOTES = latin1("# caf\xe9 au lait\nprint('hello')\n");
const APP = Buffer.concat([BOM, Buffer.from("// app\r\nexport const greeting = 'hello';\r\n", "utf8")]);

let rig: ResolveRig;
let pristine: string;
beforeEach(async () => {
  rig = await startResolveRig({
    issue: "The greeting is wrong\n\nnotes.py and src/app.js say hello; they must say bye.\n",
    files: {
      "notes.py": NOTES,
      "src/app.js": APP,
      "README.md": "# demo\n\nGreets.\n",
      "src/other.js": "export const other = 1;\n",
      ".github/magis.yml": "qa_iterations: 3\n",
    },
  });
  pristine = path.join(rig.work, "pristine");
  fs.cpSync(rig.checkout, pristine, { recursive: true });
});
afterEach(() => rig.close());

/** The scripted team, the Developer of each file answering as given. */
const developerAnswers = (developers: Record<string, DeveloperScript>): void => scriptGreeting(rig.model, developers);

/** patch.diff applied with the real `git apply` to a copy of the untouched checkout. */
function applyPatch(): string {
  const result = spawnSync("git", ["apply", path.join(rig.out, "patch.diff")], { cwd: pristine, encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return pristine;
}

describe("magis resolve keeps each file's encoding, byte for byte", () => {
  it("edits line 2 of a Latin-1 file without touching line 1: --apply, patch.diff and what the agents read", async () => {
    developerAnswers({
      "notes.py": {
        locate: { path: "notes.py", ranges: [{ start: 2, end: 2, why: "the greeting" }] },
        write: [{ old: "print('hello')", new: "print('bye')" }],
      },
      "src/app.js": {
        locate: { path: "src/app.js", ranges: [{ start: 2, end: 2, why: "the greeting" }] },
        write: [{ old: "export const greeting = 'hello';", new: "export const greeting = 'bye';" }],
      },
    });
    const run = await rig.resolve(["--apply"]);
    expect(rig.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);

    const want = latin1("# caf\xe9 au lait\nprint('bye')\n");
    expect(fs.readFileSync(path.join(rig.checkout, "notes.py"))).toEqual(want);
    expect(fs.readFileSync(path.join(applyPatch(), "notes.py"))).toEqual(want);
    // The Developer read "café" and QA reviewed a diff without replacement characters.
    const located = rig.model.requests.find((r) => r.prompt === "developer-locate-lines" && r.messages.at(-1)!.content.includes("`notes.py`"))!;
    expect(located.messages.at(-1)!.content).toContain("1 | # café au lait");
    for (const request of rig.model.requests) expect(JSON.stringify(request.messages)).not.toContain("\uFFFD");
  });

  it("refuses new text a Latin-1 file cannot hold, says why, and takes the next attempt", async () => {
    developerAnswers({
      "notes.py": {
        locate: { path: "notes.py", ranges: [{ start: 2, end: 2, why: "the greeting" }] },
        write: [
          { old: "print('hello')", new: "print('hello → bye')" },
          { old: "print('hello')", new: "print('hello -> bye')" },
        ],
      },
      "src/app.js": {
        locate: { path: "src/app.js", ranges: [{ start: 2, end: 2, why: "the greeting" }] },
        write: [{ old: "export const greeting = 'hello';", new: "export const greeting = 'bye';" }],
      },
    });
    const run = await rig.resolve(["--apply"]);
    expect(run.code, run.stderr).toBe(0);
    const refusal = "your change cannot be written to `notes.py`: after it, line 2, column 14 has '→' (U+2192), and the file is Latin-1 (ISO-8859-1)";
    expect(run.stderr).toContain(`notes.py: attempt 1 refused: ${refusal}`);
    const second = rig.model.requests.filter((r) => r.prompt === "developer-locate-lines" && r.messages.at(-1)!.content.includes("`notes.py`"))[1]!;
    expect(second.messages.at(-1)!.content).toContain(refusal);
    expect(fs.readFileSync(path.join(rig.checkout, "notes.py"))).toEqual(latin1("# caf\xe9 au lait\nprint('hello -> bye')\n"));
  });

  it("keeps a byte-order mark once when the model echoes it in old and new, and CRLF endings", async () => {
    developerAnswers({
      "notes.py": {
        locate: { path: "notes.py", ranges: [{ start: 2, end: 2, why: "the greeting" }] },
        write: [{ old: "print('hello')", new: "print('bye')" }],
      },
      "src/app.js": {
        locate: { path: "src/app.js", ranges: [{ start: 1, end: 2, why: "the greeting" }] },
        write: [{ old: "\uFEFF// app\nexport const greeting = 'hello';", new: "\uFEFF// app: greets\nexport const greeting = 'bye';" }],
      },
    });
    const run = await rig.resolve(["--apply"]);
    expect(run.code, run.stderr).toBe(0);
    const want = Buffer.concat([BOM, Buffer.from("// app: greets\r\nexport const greeting = 'bye';\r\n", "utf8")]);
    expect(fs.readFileSync(path.join(rig.checkout, "src/app.js"))).toEqual(want);
    expect(fs.readFileSync(path.join(applyPatch(), "src/app.js"))).toEqual(want);
    // The Developer is shown the lines without the mark.
    for (const request of rig.model.requests) expect(JSON.stringify(request.messages)).not.toContain("\uFEFF");
  });
});
