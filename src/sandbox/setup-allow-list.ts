/**
 * The hosts a setup reaches when the operator turns its network on (MAGIS_SANDBOX_SETUP_NETWORK=1) and lists none:
 * the common package registries and GitHub's downloads, by name and on ports 80 and 443 alone.
 */
export const DEFAULT_SETUP_HOSTS: readonly string[] = [
  "registry.npmjs.org",
  "registry.yarnpkg.com",
  "pypi.org",
  "files.pythonhosted.org",
  "proxy.golang.org",
  "sum.golang.org",
  "repo.maven.apache.org",
  "repo1.maven.org",
  "index.crates.io",
  "static.crates.io",
  "rubygems.org",
  "github.com",
  "codeload.github.com",
  "objects.githubusercontent.com",
];

/**
 * What a setup's proxy allows, from the operator's two settings: MAGIS_SETUP_ALLOW_HOSTS when it lists any (a list
 * turns the network on by itself), else the default registries when MAGIS_SANDBOX_SETUP_NETWORK is on, else nothing
 * (the setup gets no network).
 */
export function setupAllowList(setupNetwork: boolean, hosts: readonly string[] = []): readonly string[] {
  if (hosts.length > 0) return hosts;
  return setupNetwork ? DEFAULT_SETUP_HOSTS : [];
}
