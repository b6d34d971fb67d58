import path from "node:path";
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";
import { MAX_VARIABLE_LENGTH, MAX_VARIABLES, VARIABLE_NAME } from "../../config.js";
import type { EnvironmentDeclaration, EnvironmentStep } from "../types.js";
import { DeclarationError, lineAndColumn } from "./declaration-error.js";
import { DEVCONTAINER_VARIABLE, lifecycleStep } from "./devcontainer-commands.js";
import { readDeclarationFile } from "./read-plain-file.js";
import type { SourceDeclaration } from "./source-declaration.js";

/** Where a devcontainer.json is looked for, first found wins. */
export const DEVCONTAINER_FILES = [".devcontainer/devcontainer.json", ".devcontainer.json"] as const;

/**
 * The lifecycle commands run as setup, in the spec's order. `updateContentCommand` is also the maintenance: the spec
 * runs it again "when new content is available" (a prebuild refreshed on newer code), which is what maintenance is.
 * `postStartCommand` and `postAttachCommand` are not taken: they run each time an editor's container starts or
 * attaches (a server, a watcher), not to set the environment up.
 */
const SETUP_COMMANDS = ["onCreateCommand", "updateContentCommand", "postCreateCommand"] as const;
const MAINTENANCE_COMMAND = "updateContentCommand";

/** Keys about an editor's container and its lifetime, with nothing for an environment: passed over without a word. */
const IGNORED = new Set(["name", "$schema", "waitFor", "shutdownAction", "overrideCommand"]);

/** What is said of each key MAGIS does not use: why, and what to do instead. */
const NOT_USED: Record<string, string> = {
  initializeCommand: "is not run: it runs on the host, and MAGIS runs a repository's commands only in the sandbox",
  postStartCommand: "is not run: it runs each time an editor's container starts; put what the setup needs in `postCreateCommand`",
  postAttachCommand: "is not run: it runs when an editor attaches; put what the setup needs in `postCreateCommand`",
  forwardPorts: "is not used: no port is forwarded, and tests run without a network",
  portsAttributes: "is not used: no port is forwarded",
  otherPortsAttributes: "is not used: no port is forwarded",
  appPort: "is not used: no port is forwarded",
  mounts: "is not used: the sandbox sees the checkout and the system only",
  workspaceMount: "is not used: the checkout is where the sandbox puts it",
  workspaceFolder: "is not used: commands run at the repository's root",
  runArgs: "is not used: the sandbox's limits are the operator's",
  privileged: "is not used: the sandbox's limits are the operator's",
  capAdd: "is not used: the sandbox's limits are the operator's",
  securityOpt: "is not used: the sandbox's limits are the operator's",
  init: "is not used: the sandbox reaps its own processes",
  hostRequirements: "is not used: the operator sets the sandbox's limits",
  remoteUser: "is not used: commands run as the sandbox's user",
  containerUser: "is not used: commands run as the sandbox's user",
  updateRemoteUserUID: "is not used: commands run as the sandbox's user",
  userEnvProbe: "is not used: commands get only the declared variables",
  customizations: "is not used: it configures editors",
  dockerComposeFile: "is not used: no service is started; start what the tests need in `postCreateCommand`",
  service: "is not used: no service is started",
  runServices: "is not used: no service is started",
  secrets: "is not used: no secret reaches the sandbox",
  overrideFeatureInstallOrder: "is not used: `features` are not installed",
};

/** A devcontainer.json (`file`, relative to `root`) as the environment it declares; throws a DeclarationError for one that cannot be read. */
export function fromDevcontainer(root: string, file: (typeof DEVCONTAINER_FILES)[number]): SourceDeclaration {
  const config = parseJsonc(file, readDeclarationFile(root, file));
  const unsupported: string[] = [];
  const steps = new Map(SETUP_COMMANDS.map((key) => [key, lifecycleStep(file, key, config[key], unsupported)]));
  const setup = [...steps.values()].filter((step): step is EnvironmentStep => step !== null);
  const maintenance = steps.get(MAINTENANCE_COMMAND);
  const env = readEnv(config, unsupported);
  const folder = path.posix.dirname(file);
  const image = readImage(config, folder, unsupported);
  for (const key of Object.keys(config)) {
    if (IGNORED.has(key) || (SETUP_COMMANDS as readonly string[]).includes(key) || HANDLED.has(key)) continue;
    if (key === "features") unsupported.push(...featuresNotInstalled(config.features));
    else unsupported.push(`\`${key}\` ${NOT_USED[key] ?? "is not known to MAGIS and not used"}`);
  }
  return {
    source: file,
    setup,
    maintenance: maintenance ? [maintenance] : [],
    env,
    keyFiles: null,
    network: null,
    ...(image ? { image } : {}),
    unsupported,
    ownFiles: [file, ...(image && "dockerfile" in image ? [image.dockerfile] : [])],
  };
}

/** Keys read below beside the lifecycle commands. */
const HANDLED = new Set(["containerEnv", "remoteEnv", "image", "build", "dockerFile", "context"]);

/** The file's text as an object, read as the spec reads it: JSON with comments and trailing commas. */
function parseJsonc(file: string, text: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const fix =
    "Fix the file (JSON with comments and trailing commas, as the Dev Containers spec reads it), or declare the environment under `environment:` in .github/magis.yml, which is read first";
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset);
    throw new DeclarationError(
      file,
      `line ${line}, column ${column}: ${PARSE_PROBLEMS[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error)}`,
      fix,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new DeclarationError(file, "does not hold an object ({ … })", fix);
  return value as Record<string, unknown>;
}

/** jsonc-parser's error codes in words. */
const PARSE_PROBLEMS: Record<string, string> = {
  InvalidSymbol: "a character that cannot start a value here",
  InvalidNumberFormat: "a number that is not written as JSON writes them",
  PropertyNameExpected: 'expected a property name in double quotes ("name")',
  ValueExpected: "expected a value (a string, number, object, array, true, false or null)",
  ColonExpected: "expected ':' after the property name",
  CommaExpected: "expected ',' between two entries",
  CloseBraceExpected: "expected '}' to close the object",
  CloseBracketExpected: "expected ']' to close the array",
  EndOfFileExpected: "expected the end of the file after the object",
  InvalidCommentToken: "a comment that is not // … or /* … */",
  UnexpectedEndOfComment: "a /* comment that is never closed with */",
  UnexpectedEndOfString: "a string that is never closed with '\"'",
  UnexpectedEndOfNumber: "a number that ends too soon",
  InvalidUnicode: "an \\u escape that is not four hex digits",
  InvalidEscapeCharacter: "a \\ escape JSON does not know",
  InvalidCharacter: "a character a string may not hold as it is (a line break or a control character must be escaped)",
};

/** `containerEnv` and then `remoteEnv` (it wins on the same name); a value the spec would substitute into is named, never passed on. */
function readEnv(config: Record<string, unknown>, unsupported: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ["containerEnv", "remoteEnv"] as const) {
    const declared = config[key];
    if (declared === undefined) continue;
    if (declared === null || typeof declared !== "object" || Array.isArray(declared)) {
      unsupported.push(`\`${key}\` is not used: it is not an object of variable names and values`);
      continue;
    }
    for (const [name, value] of Object.entries(declared)) {
      delete env[name];
      const variable = typeof value === "string" ? DEVCONTAINER_VARIABLE.exec(value)?.[0] : undefined;
      if (!VARIABLE_NAME.test(name))
        unsupported.push(`\`${key}\` holds a variable MAGIS cannot set: names are letters, digits and _, not starting with a digit`);
      else if (typeof value !== "string") unsupported.push(`\`${key}.${name}\` is not set: its value is not a string`);
      else if (variable)
        unsupported.push(`\`${key}.${name}\` is not set: its value uses \`${variable}\`, which MAGIS does not substitute; set it in a setup command instead`);
      else if (value.length > MAX_VARIABLE_LENGTH)
        unsupported.push(`\`${key}.${name}\` is not set: its value is longer than ${MAX_VARIABLE_LENGTH} characters`);
      else env[name] = value;
    }
  }
  const names = Object.keys(env);
  if (names.length > MAX_VARIABLES) {
    for (const name of names.slice(MAX_VARIABLES)) delete env[name];
    unsupported.push(`${names.length - MAX_VARIABLES} variables past the first ${MAX_VARIABLES} are not set: MAGIS sets at most ${MAX_VARIABLES}`);
  }
  return env;
}

/** `build.dockerfile` (with `build.context`) or `image`, paths made relative to the root; a path leading out of it is named. */
function readImage(config: Record<string, unknown>, folder: string, unsupported: string[]): EnvironmentDeclaration["image"] {
  const build = config.build !== null && typeof config.build === "object" && !Array.isArray(config.build) ? (config.build as Record<string, unknown>) : {};
  if (config.build !== undefined && build !== config.build) unsupported.push("`build` is not used: it is not an object");
  for (const key of Object.keys(build)) {
    if (key !== "dockerfile" && key !== "context")
      unsupported.push(`\`build.${key}\` is not used: the image is built from the Dockerfile and its context alone`);
  }
  const dockerfile = build.dockerfile ?? config.dockerFile;
  const context = build.context ?? config.context ?? ".";
  if (typeof dockerfile === "string" && typeof context === "string") {
    const inRoot = (relative: string) => {
      const joined = path.posix.normalize(path.posix.join(folder, relative));
      return joined === ".." || joined.startsWith("../") || path.posix.isAbsolute(relative) ? null : joined;
    };
    const [file, dir] = [inRoot(dockerfile), inRoot(context)];
    if (file && dir) return { dockerfile: file, context: dir };
    unsupported.push("`build` is not used: its Dockerfile or context lies outside the repository");
  } else if (dockerfile !== undefined) {
    unsupported.push("`build` is not used: its `dockerfile` and `context` must be paths");
  }
  if (typeof config.image === "string" && config.image.trim()) return { image: config.image.trim() };
  if (config.image !== undefined) unsupported.push("`image` is not used: it is not an image name");
  return undefined;
}

/** What is said of `features`: the features it names, which are not installed, and where to install what they give instead. */
function featuresNotInstalled(features: unknown): string[] {
  const ids = features !== null && typeof features === "object" ? Object.keys(features) : [];
  if (ids.length === 0) return [];
  const shown = ids.length > 4 ? `${ids.slice(0, 4).join(", ")}, …` : ids.join(", ");
  return [
    `\`features\` (${shown}) ${ids.length === 1 ? "is" : "are"} not installed: install what ${ids.length === 1 ? "it gives" : "they give"} in \`onCreateCommand\``,
  ];
}
