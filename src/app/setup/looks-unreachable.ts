import net from "node:net";

/** Loopback, private, link-local and unspecified IPv4 and IPv6 ranges: addresses GitHub's servers cannot reach. */
const PRIVATE = new net.BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  PRIVATE.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
  ["::", 127],
  ["fc00::", 7],
  ["fe80::", 10],
] as const) {
  PRIVATE.addSubnet(address, prefix, "ipv6");
}

/**
 * Whether the address `base` (a URL) is one GitHub could not deliver webhooks to: localhost, a name without a dot or
 * under .local or .internal, or a loopback or private IP address. A public name may still be firewalled; this catches
 * the addresses that cannot work.
 */
export function looksUnreachable(base: string): boolean {
  const host = new URL(base).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const family = net.isIP(host);
  if (family !== 0) return PRIVATE.check(host, family === 4 ? "ipv4" : "ipv6");
  return !host.includes(".") || /\.(localhost|local|internal|lan|home\.arpa)$/.test(host);
}
