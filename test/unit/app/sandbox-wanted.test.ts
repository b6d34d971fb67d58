import { describe, expect, it } from "vitest";
import { sandboxWanted } from "../../../src/app/create-services.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";

describe("what a door asks of its sandbox", () => {
  it("hands on the operator's setup hosts, and with them the setup's network", () => {
    const env = { MAGIS_SETUP_ALLOW_HOSTS: "registry.npmjs.org,127.0.0.1:4873" };
    const wanted = sandboxWanted(readSettings(env, { door: "serve" }), { env, secrets: [], cwd: "/srv/magis" });
    expect(wanted.setupAllowHosts).toEqual(["registry.npmjs.org", "127.0.0.1:4873"]);
    const none = sandboxWanted(readSettings({}, { door: "serve" }), { env: {}, secrets: [], cwd: "/srv/magis" });
    expect(none.setupAllowHosts ?? []).toEqual([]);
  });
});
