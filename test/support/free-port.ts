import net from "node:net";

/** A TCP port of 127.0.0.1 free a moment ago (listened on, then closed): for a server a test starts, or a port nothing answers on. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
