import net from "node:net";

const relays: net.Server[] = [];

/**
 * A TCP relay to the database at `url` that the test can cut (connections refused) or stall (taken, never answered),
 * and mend, as a network partition cuts one machine off it.
 */
export async function cuttableRelay(url: string): Promise<{ url: string; cut(): void; stall(): void; mend(): void }> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  let cut = false;
  let stalled = false;
  const held = new Set<net.Socket>();
  const relay = net.createServer((socket) => {
    if (cut) return void socket.destroy();
    if (stalled) {
      // Taken and never answered, as a server behind a firewall that drops packets.
      held.add(socket);
      socket.on("error", () => {});
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.on("error", () => {});
      end.on("close", () => {
        sockets.delete(end);
        socket.destroy();
        upstream.destroy();
      });
    }
    socket.pipe(upstream).pipe(socket);
  });
  relays.push(relay);
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const relayed = new URL(url);
  relayed.port = String((relay.address() as net.AddressInfo).port);
  return {
    url: relayed.toString(),
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    stall() {
      stalled = true;
      for (const socket of sockets) socket.destroy();
    },
    mend() {
      cut = false;
      stalled = false;
      for (const socket of held) socket.destroy();
      held.clear();
    },
  };
}

/** Closes every relay opened so far (each test file's afterEach). */
export async function closeRelays(): Promise<void> {
  for (const relay of relays.splice(0)) await new Promise((resolve) => relay.close(resolve));
}
