import { describe, expect, it } from "vitest";
import { INSTALLATION, useRig } from "./e2e-rig.js";
import { labeledPayload } from "./payloads.js";
import { scriptResolve } from "./script-resolve.js";

const rig = useRig();
// A model key of no credential's shape (a local server takes any), and the sign-in's secrets of an App whose session
// pages are set up: only their values tell them apart from words.
const KEY = "local-model-key-of-the-app-0123456789";
const CLIENT_SECRET = "client-secret-of-the-sign-in-0123456789";
const SESSION_SECRET = "cookie-signing-key-of-the-sign-in-0123456789abcdef";

describe("the app's secrets in a job's session", () => {
  it("are redacted with commands off: a model answer quoting the model key and the sign-in's secrets stores [redacted]", async () => {
    await rig.setUp({
      env: { OPENAI_API_KEY: KEY, GITHUB_CLIENT_SECRET: CLIENT_SECRET, MAGIS_SESSION_SECRET: SESSION_SECRET },
      // No sandbox: only the installation token would be redacted by value if the app's secrets came with the sandbox.
      sandbox: { sandbox: null, why: "commands are off in this test", cause: "the test turns them off" },
      script: (model) => {
        // The Manager's first answer quotes all three; the rest of the run is the usual one (its own first answer unused).
        model.script("manager-define-task", {
          needs_change: true,
          description: `Line 4 of README.md spells 'commit' as 'committ' (key ${KEY}, client ${CLIENT_SECRET}, cookies ${SESSION_SECRET}).`,
        });
        scriptResolve(model);
      },
    });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-session-secrets");
    await rig.app.services.settled();
    const [job] = await rig.jobs();
    expect(job).toMatchObject({ status: "succeeded" });
    const text = JSON.stringify(await rig.app.services.store.sessions.read(job!.id));
    // The answer reached the session (the sentence around the secrets is there), its secrets did not.
    expect(text).toContain("(key [redacted], client [redacted], cookies [redacted])");
    for (const secret of [KEY, CLIENT_SECRET, SESSION_SECRET]) expect(text).not.toContain(secret);
  });
});
