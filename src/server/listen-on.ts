import type http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";

/** The app's HTTP server once it listens. */
export interface RunningServer {
  host: string;
  port: number;
  /** Stops listening (and forwarding from the webhook proxy) and waits for open requests to finish. */
  stop(): Promise<void>;
}

/** Starts `server` listening on `host`:`port` (0 picks a free port) and logs where; its `stop` waits for open requests to finish. */
export async function listenOn(server: http.Server, host: string, port: number, log: Logger): Promise<RunningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  log.info(`Listening on http://${host}:${address.port}`);
  return {
    host,
    port: address.port,
    stop: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
