import { describe, expect, it } from "vitest";
import { isRequestHost, matchesPattern, parseHostPattern, specialAddress } from "../../../src/sandbox/host-patterns.js";

const allows = (pattern: string, host: string, port: number) => matchesPattern(parseHostPattern(pattern), host, port);

describe("host patterns", () => {
  it.each([
    ["registry.npmjs.org", "registry.npmjs.org", 443, true],
    ["registry.npmjs.org", "registry.npmjs.org", 8443, false],
    ["registry.npmjs.org", "evil-registry.npmjs.org", 443, false],
    ["*.example.com", "a.b.example.com", 443, true],
    ["*.example.com", "example.com", 443, false],
    ["*.example.com", "badexample.com", 443, false],
    ["example.com:8080", "example.com", 8080, true],
    ["10.0.0.0/8", "10.9.8.7", 80, true],
    ["10.0.0.0/8:5000", "10.9.8.7", 80, false],
    ["[::1]:4873", "::1", 4873, true],
    ["fc00::/7", "fd12::1", 443, true],
    ["127.0.0.1:4873", "127.0.0.1", 4873, true],
  ] as const)("%s lets %s:%i through: %s", (pattern, host, port, expected) => {
    expect(allows(pattern, host, port)).toBe(expected);
  });

  it("names what is refused, IPv4-mapped IPv6 as its IPv4", () => {
    const cases = [
      "127.0.0.1",
      "::1",
      "169.254.169.254",
      "fe80::1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "100.64.0.1",
      "fd00::1",
      "0.0.0.0",
      "224.0.0.1",
      "::ffff:127.0.0.1",
    ];
    expect(cases.map((address) => specialAddress(address, []))).toEqual([
      "a loopback address (127.0.0.1)",
      "a loopback address (::1)",
      "a link-local address (169.254.169.254)",
      "a link-local address (fe80::1)",
      "a private address (10.1.2.3)",
      "a private address (172.20.0.1)",
      "a private address (192.168.1.1)",
      "a private address (100.64.0.1)",
      "a private address (fd00::1)",
      "an unspecified address (0.0.0.0)",
      "a multicast address (224.0.0.1)",
      "a loopback address (127.0.0.1)",
    ]);
    expect(specialAddress("93.184.215.14", [])).toBeNull();
    expect(specialAddress("93.184.215.14", ["93.184.215.14"])).toBe("the bot's own address (93.184.215.14)");
  });

  it("refuses the ranges that lead to an IPv4 address inside, and the reserved and site-local ones", () => {
    const cases = ["64:ff9b::a01:203", "64:ff9b:1::1", "2002:7f00:1::1", "198.18.0.1", "198.19.255.254", "192.0.0.8", "fec0::1"];
    expect(cases.map((address) => specialAddress(address, []))).toEqual([
      "a NAT64 address (64:ff9b::a01:203)",
      "a NAT64 address (64:ff9b:1::1)",
      "a 6to4 address (2002:7f00:1::1)",
      "a reserved address (198.18.0.1)",
      "a reserved address (198.19.255.254)",
      "a reserved address (192.0.0.8)",
      "a private address (fec0::1)",
    ]);
    expect(["198.20.0.1", "192.0.1.1", "2001:db9::1", "64:ff9b:2::1"].map((address) => specialAddress(address, []))).toEqual([null, null, null, null]);
  });

  it("takes a DNS name or an IP address as a request's host, and nothing else", () => {
    const good = ["registry.npmjs.org", "xn--bcher-kva.example", "a-b.c", "10.0.0.1", "::1", "localhost", `${"a".repeat(63)}.example`];
    const bad = ["", "a_b.example", "a..b", "a.b.", "ex ample.com", "exa%mple.com", "a\nb", `${"a".repeat(64)}.example`, `${"a.".repeat(127)}ab`, "*.example"];
    expect(good.filter((host) => !isRequestHost(host))).toEqual([]);
    expect(bad.filter((host) => isRequestHost(host))).toEqual([]);
  });

  it.each(["registry.*.org", "*", "exa mple.com", "example.com:0", "10.0.0.0/33", "[example.com]:80", "http://example.com"])(
    "refuses %s, quoting it",
    (pattern) => {
      expect(() => parseHostPattern(pattern)).toThrow(`'${pattern}' is not a host pattern`);
    },
  );
});
