// `npm run docs:config`: writes docs/configuration.md and docs/magis.schema.json from the settings table and the
// config's schema, and the events and permissions section of docs/app.md from app.yml;
// test/unit/app/settings/config-docs.test.ts fails while the committed ones differ.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderConfigSchema } from "../src/app/settings/render-config-schema.js";
import { renderConfigurationDocs } from "../src/app/settings/render-configuration-docs.js";
import { renderAppManifestDocs, replaceBetweenMarkers } from "../src/app/settings/render-app-manifest.js";

const docs = fileURLToPath(new URL("../docs", import.meta.url));
const manifest = fs.readFileSync(fileURLToPath(new URL("../app.yml", import.meta.url)), "utf8");
fs.mkdirSync(docs, { recursive: true });
for (const [file, text] of [
  ["configuration.md", renderConfigurationDocs()],
  ["magis.schema.json", renderConfigSchema()],
  ["app.md", replaceBetweenMarkers(fs.readFileSync(path.join(docs, "app.md"), "utf8"), renderAppManifestDocs(manifest))],
] as const) {
  fs.writeFileSync(path.join(docs, file), text);
  console.log(`wrote docs/${file}`);
}
