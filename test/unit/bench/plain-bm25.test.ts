import { describe, expect, it } from "vitest";
import { rankPlain } from "../../../bench/lib/plain-bm25.js";

const sessions = `class Session(SessionRedirectMixin):
    def merge_environment_settings(self, url, proxies, stream, verify, cert):
        """Check the environment and merge it with some settings."""
        if self.trust_env:
            env_proxies = get_environ_proxies(url) or {}
            for (k, v) in env_proxies.items():
                proxies.setdefault(k, v)
            if verify is True or verify is None:
                verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        verify = merge_setting(verify, self.verify)
        return {"verify": verify, "proxies": proxies, "stream": stream, "cert": cert}
`;
const models = `class Response:
    def iter_content(self, chunk_size=1, decode_unicode=False):
        return iter_slices(self._content, chunk_size)

    def json(self, **kwargs):
        return complexjson.loads(self.text, **kwargs)
`;
const adapters = `class HTTPAdapter(BaseAdapter):
    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        conn = self.get_connection(request.url, proxies)
        self.cert_verify(conn, request.url, verify, cert)
`;
const testSessions = `def test_merge_environment_settings_keeps_verify_false(monkeypatch):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/ca.pem")
    session = requests.Session()
    settings = session.merge_environment_settings("https://example.com", {}, False, False, None)
    assert settings["verify"] is False  # merge_environment_settings must not override verify=False
`;
const issue = `Session.verify=False ignored when REQUESTS_CA_BUNDLE is set

When the environment sets REQUESTS_CA_BUNDLE, merge_environment_settings replaces verify=False
on the session with the bundle path, so the request verifies anyway.`;

describe("rankPlain", () => {
  it("ranks the file whose words the issue uses first, and leaves out tests and non-Python files", () => {
    const ranked = rankPlain(
      [
        { path: "requests/models.py", text: models },
        { path: "requests/sessions.py", text: sessions },
        { path: "requests/adapters.py", text: adapters },
        { path: "tests/test_sessions.py", text: testSessions },
        { path: "requests/sessions_test.py", text: testSessions },
        { path: "conftest.py", text: testSessions },
        { path: "docs/user/advanced.rst", text: `${issue}\n${issue}` },
      ],
      issue,
    );
    expect(ranked[0]).toBe("requests/sessions.py");
    expect(ranked).toContain("requests/adapters.py");
    expect(ranked.filter((p) => /test|conftest|\.rst$/.test(p))).toEqual([]);
  });

  it("breaks ties by path, whatever the input order, and leaves out files sharing no word", () => {
    const files = ["pkg/c.py", "pkg/a.py", "pkg/b.py"].map((path) => ({ path, text: "def frobnicate(value):\n    return value\n" }));
    const unrelated = { path: "pkg/other.py", text: "x = 1\n" };
    expect(rankPlain([...files, unrelated], "frobnicate fails")).toEqual(["pkg/a.py", "pkg/b.py", "pkg/c.py"]);
    expect(rankPlain([unrelated, ...files].reverse(), "frobnicate fails")).toEqual(["pkg/a.py", "pkg/b.py", "pkg/c.py"]);
  });

  it("works with fewer than three files (wink needs three documents) and with none", () => {
    expect(rankPlain([{ path: "requests/models.py", text: models }], "iter_content chunk_size")).toEqual(["requests/models.py"]);
    expect(rankPlain([], "anything")).toEqual([]);
  });
});
