import type { EnvironmentDeclaration } from "../types.js";

/** What one source declares, before the reader completes it: key files defaulted, the other sources found named. */
export type SourceDeclaration = Omit<EnvironmentDeclaration, "keyFiles" | "shadowed"> & {
  /** The key files it declares, or null: the default, found in the tree. */
  keyFiles: string[] | null;
  /** Its own files (the devcontainer.json and its Dockerfile, the workflow), added to the default key files. */
  ownFiles: string[];
};
