// Names of variables that carry credentials: the model's key, the GitHub token, the app's private key and webhook
// secret, a database URL with its password, cloud keys. The repository's commands run code a model changed, so they
// never see them.
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|PGPASS|PRIVATE|CREDENTIAL|API_?KEY|ACCESS_?KEY|AUTH|(?:^|_)PAT(?:_|$))/i;
// A URL with a password in it (`redis://:pw@host`, `https://user:key@proxy`), whatever the variable's name.
const CREDENTIAL_URL = /:\/\/[^\s/@]*:[^\s/@]+@/;
// Whole families: the bot's own settings, model providers, the Action's inputs (`INPUT_OPENAI_API_KEY`, …), the
// runner's cache and OIDC endpoints, and the bot's database URL (its password is in it).
const SECRET_PREFIX = /^(MAGIS_|OPENAI_|ANTHROPIC_|AZURE_OPENAI|INPUT_|ACTIONS_|DATABASE_URL$)/i;

/**
 * The environment a repository's command (`setup_command`, `test_command`) runs in: this process's, without any
 * variable that may hold a credential, and with `CI=true` so test runners behave as they do in CI (no watch mode, no
 * prompts). Values equal to a known secret, or URLs with a password, are dropped too, whatever their name. This keeps
 * credentials out of the command's own environment; it is no sandbox (see "Tests in the loop" in the README).
 */
export function commandEnv(source: NodeJS.ProcessEnv, secrets: readonly (string | undefined)[] = []): NodeJS.ProcessEnv {
  const known = new Set(secrets.filter((s): s is string => typeof s === "string" && s.length >= 8));
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || SECRET_NAME.test(name) || SECRET_PREFIX.test(name) || known.has(value) || CREDENTIAL_URL.test(value)) continue;
    env[name] = value;
  }
  env.CI = "true";
  return env;
}
