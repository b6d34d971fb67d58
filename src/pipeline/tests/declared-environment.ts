import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { EnvironmentDeclaration } from "../../environment/types.js";
import type { Sandbox } from "../../sandbox/index.js";
import type { StageContext } from "../types.js";

/** The repository's declared environment: its `setup_command` as one setup step; null when it declares none. */
export function declaredEnvironment(ctx: StageContext): EnvironmentDeclaration | null {
  const setup = ctx.config.setup_command;
  if (!setup) return null;
  return {
    source: ".github/magis.yml setup_command",
    setup: [{ name: "setup_command", command: setup }],
    maintenance: [],
    env: {},
    keyFiles: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "package.json", "package-lock.json"],
    network: null,
    unsupported: [],
    shadowed: [],
  };
}

/** The key a declaration's environment is kept under, and what it was made of. */
export function environmentKeyOf(declaration: EnvironmentDeclaration, root: string, sandbox: Sandbox): { key: string; parts: Record<string, unknown> } {
  const files = Object.fromEntries(
    declaration.keyFiles.map((name) => {
      const at = path.join(root, name);
      const text = fs.existsSync(at) ? fs.readFileSync(at) : null;
      return [name, text ? crypto.createHash("sha1").update(text).digest("hex") : null];
    }),
  );
  const parts = { setup: declaration.setup, maintenance: declaration.maintenance, env: declaration.env, files, sandbox: sandbox.kind };
  return { key: crypto.createHash("sha256").update(JSON.stringify(parts)).digest("hex"), parts };
}
