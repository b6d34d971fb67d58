// The environment's face: what the rest of src/ uses. Outside src/environment/, import from here or from types.ts alone;
// .dependency-cruiser.cjs holds that rule.
export type {
  EnvironmentDeclaration,
  EnvironmentScope,
  EnvironmentShelf,
  EnvironmentSource,
  EnvironmentStep,
  KeptEnvironment,
  KeptEnvironmentRecord,
  LayeredHow,
} from "./types.js";
export { environmentKey, sandboxBase, type EnvironmentKeyParts } from "./environment-key.js";
export { hashKeyFiles } from "./hash-key-files.js";
export { openEnvironmentShelf, scopeFolder, type ShelfOptions } from "./shelf/open-environment-shelf.js";
export { describeDeclaration, readEnvironmentDeclaration } from "./read-declaration.js";
export { DeclarationError } from "./declare/declaration-error.js";
export { mountOverlay, type LayeredCopy } from "./shelf/mount-overlay.js";
export { keepSetUpLayer, type SetUpLayer } from "./shelf/keep-set-up-layer.js";
