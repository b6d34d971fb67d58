import net from "node:net";
import os from "node:os";

/**
 * One entry of MAGIS_SETUP_ALLOW_HOSTS or of a repository's `network:` list: a host name (`registry.npmjs.org`), its
 * subdomains (`*.example.com`, not example.com itself), an address (`10.0.0.5`, `::1`, `[::1]:8080`) or a range of them
 * (`10.0.0.0/8`), each with an optional `:port`. Without a port it allows 80 and 443 alone.
 */
export interface HostPattern {
  /** As written, for messages. */
  text: string;
  kind: "name" | "subdomains" | "address";
  /** The name, lower case (`name`), or the suffix after `*.` (`subdomains`). */
  name: string;
  /** The addresses it covers (`address`). */
  block: net.BlockList | null;
  port: number | null;
}

/** The ports a pattern without `:port` allows: plain HTTP and HTTPS. */
const DEFAULT_PORTS = [80, 443];

const LABELS = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** Reads one pattern; a wrong one throws an Error that quotes it and says what is allowed. */
export function parseHostPattern(written: string): HostPattern {
  const text = written.trim().toLowerCase();
  const wrong = (why: string) =>
    new Error(
      `'${written}' is not a host pattern (${why}): write a name (registry.npmjs.org), its subdomains (*.example.com), an address (10.0.0.5, [::1]) or a range (10.0.0.0/8), each with an optional :port`,
    );
  let host = text;
  let port: number | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2] === undefined ? null : readPort(bracketed[2], wrong);
    if (net.isIPv6(host.split("/")[0]!) === false) throw wrong("only an IPv6 address goes in brackets");
  } else if (net.isIPv6(text.split("/")[0]!)) {
    host = text;
  } else {
    const colon = text.lastIndexOf(":");
    if (colon >= 0) {
      host = text.slice(0, colon);
      port = readPort(text.slice(colon + 1), wrong);
    }
  }
  if (host.includes("/")) {
    const [address, bits] = host.split("/") as [string, string];
    const family = net.isIP(address);
    const prefix = Number(bits);
    if (family === 0 || !/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw wrong("not an address range");
    const block = new net.BlockList();
    block.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
    return { text, kind: "address", name: "", block, port };
  }
  if (net.isIP(host)) {
    const block = new net.BlockList();
    block.addAddress(host, net.isIPv4(host) ? "ipv4" : "ipv6");
    return { text, kind: "address", name: "", block, port };
  }
  if (host.startsWith("*.")) {
    if (!LABELS.test(host.slice(2))) throw wrong("not a domain after *.");
    return { text, kind: "subdomains", name: host.slice(2), block: null, port };
  }
  if (!LABELS.test(host)) throw wrong(host.includes("*") ? "a * only as a whole first label, *.example.com" : "not a host name");
  return { text, kind: "name", name: host, block: null, port };
}

function readPort(digits: string, wrong: (why: string) => Error): number {
  const port = Number(digits);
  if (!/^\d+$/.test(digits) || port < 1 || port > 65_535) throw wrong(`port '${digits}' is not 1–65535`);
  return port;
}

/** A DNS name as a request may give it: labels of letters, digits and hyphens, each 1–63 long, 253 in all. */
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*$/;

/** Whether `host` (normalized) is a DNS name or an IP address, the only hosts a setup's request may name. */
export function isRequestHost(host: string): boolean {
  return net.isIP(host) !== 0 || DNS_NAME.test(host);
}

/** A host as a request names it: lower case, without brackets or a final dot. */
export function normalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
}

/** Whether `pattern` lets a request for `host` (normalized) on `port` through. */
export function matchesPattern(pattern: HostPattern, host: string, port: number): boolean {
  if (!(pattern.port === null ? DEFAULT_PORTS.includes(port) : pattern.port === port)) return false;
  if (pattern.kind === "name") return host === pattern.name;
  if (pattern.kind === "subdomains") return host.endsWith(`.${pattern.name}`);
  return coversAddress(pattern, host);
}

/** Whether an address pattern covers `address` (an IP literal; an IPv4-mapped IPv6 one as its IPv4). */
export function coversAddress(pattern: HostPattern, address: string): boolean {
  const plain = unmapped(address);
  const family = net.isIP(plain);
  return pattern.block !== null && family !== 0 && pattern.block.check(plain, family === 4 ? "ipv4" : "ipv6");
}

/** `::ffff:10.0.0.1` as `10.0.0.1`; any other address as it is. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** The ranges no setup reaches unless the operator lists them, with what each is called in a refusal. */
const SPECIAL: readonly { kind: string; v4: readonly string[]; v6: readonly string[] }[] = [
  { kind: "an unspecified address", v4: ["0.0.0.0/8"], v6: ["::/128"] },
  { kind: "a loopback address", v4: ["127.0.0.0/8"], v6: ["::1/128"] },
  { kind: "a link-local address", v4: ["169.254.0.0/16"], v6: ["fe80::/10"] },
  { kind: "a private address", v4: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"], v6: ["fc00::/7", "fec0::/10"] },
  { kind: "a multicast address", v4: ["224.0.0.0/4"], v6: ["ff00::/8"] },
  { kind: "a reserved address", v4: ["240.0.0.0/4", "192.0.0.0/24", "198.18.0.0/15"], v6: [] },
  // Prefixes that carry an IPv4 address inside (RFC 6052, 8215, 3056): a gateway would take it to that address, private or not.
  { kind: "a NAT64 address", v4: [], v6: ["64:ff9b::/96", "64:ff9b:1::/48"] },
  { kind: "a 6to4 address", v4: [], v6: ["2002::/16"] },
];

const SPECIAL_BLOCKS = SPECIAL.map(({ kind, v4, v6 }) => {
  const block = new net.BlockList();
  for (const range of v4) block.addSubnet(range.split("/")[0]!, Number(range.split("/")[1]), "ipv4");
  for (const range of v6) block.addSubnet(range.split("/")[0]!, Number(range.split("/")[1]), "ipv6");
  return { kind, block };
});

/**
 * Why a setup may not reach `address` unless the operator lists it: "a loopback address (127.0.0.1)", "the bot's own
 * address (192.0.2.7)"; null for an address of the public internet.
 */
export function specialAddress(address: string, own: readonly string[] = ownAddresses()): string | null {
  const plain = unmapped(address);
  const family = net.isIP(plain) === 4 ? "ipv4" : "ipv6";
  for (const { kind, block } of SPECIAL_BLOCKS) if (block.check(plain, family)) return `${kind} (${plain})`;
  if (own.includes(plain.toLowerCase())) return `the bot's own address (${plain})`;
  return null;
}

/** This machine's interface addresses, as the kernel reports them now. */
export function ownAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address.toLowerCase().replace(/%.*$/, "")));
}
