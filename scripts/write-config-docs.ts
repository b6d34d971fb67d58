// `npm run docs:config`: writes docs/configuration.md and docs/magis.schema.json from the settings table and the
// config's schema; test/unit/app/settings/config-docs.test.ts fails while the committed ones differ.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderConfigSchema } from "../src/app/settings/render-config-schema.js";
import { renderConfigurationDocs } from "../src/app/settings/render-configuration-docs.js";

const docs = fileURLToPath(new URL("../docs", import.meta.url));
fs.mkdirSync(docs, { recursive: true });
for (const [file, text] of [
  ["configuration.md", renderConfigurationDocs()],
  ["magis.schema.json", renderConfigSchema()],
] as const) {
  fs.writeFileSync(path.join(docs, file), text);
  console.log(`wrote docs/${file}`);
}
