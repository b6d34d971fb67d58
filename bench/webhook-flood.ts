// What unauthenticated webhook bodies cost the server: N clients at once each POST a body just under GitHub's 25 MB
// cap, first without a signature, then with a forged one. The server runs in a child process; its peak RSS is
// reported against its RSS before, with the answers the clients got.
//
//   npm run bench:webhook-flood [-- --clients 80 --mb 24]
import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { clients: { type: "string", default: "80" }, mb: { type: "string", default: "24" } } });
const clients = Number(values.clients);
const mb = Number(values.mb);
if (!Number.isInteger(clients) || clients < 1 || !Number.isInteger(mb) || mb < 1 || mb > 25) {
  console.error("--clients: a whole number of at least 1; --mb: a whole number from 1 to 25");
  process.exit(2);
}

const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "lib", "serve-webhook-guard.ts")], {
  stdio: ["pipe", "pipe", "inherit"],
  detached: true,
});
const lines: string[] = [];
let waiting: (() => void) | undefined;
child.stdout.on("data", (data: Buffer) => {
  lines.push(...data.toString().trim().split("\n"));
  waiting?.();
});
const nextLine = async (): Promise<string> => {
  const seen = lines.length;
  while (lines.length === seen) await new Promise<void>((resolve) => (waiting = resolve));
  return lines.at(-1)!;
};
const stopChild = () => {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // gone already
  }
};
process.on("exit", stopChild);

try {
  const port = Number((await nextLine()).split(" ")[1]);
  const memory = async () => {
    child.stdin.write("?\n");
    const [, rss, , peak] = (await nextLine()).split(" ");
    return { rss: Number(rss), peak: Number(peak) };
  };
  for (const signature of [undefined, `sha256=${"0".repeat(64)}`]) {
    const before = await memory();
    const answers = await Promise.all(Array.from({ length: clients }, () => post(port, signature)));
    const after = await memory();
    const counts = new Map<string, number>();
    for (const answer of answers) counts.set(answer, (counts.get(answer) ?? 0) + 1);
    const growth = Math.round((after.peak - before.rss) / 1024 / 1024);
    console.log(
      `${clients} bodies of ${mb} MB, ${signature ? "forged signature" : "no signature"}: answers ${[...counts].map(([s, n]) => `${s}×${n}`).join(", ")}; server RSS ${Math.round(before.rss / 1048576)} MB, peak +${growth} MB`,
    );
  }
} finally {
  child.stdin.end();
  stopChild();
}

/** POSTs `mb` MB of spaces a megabyte at a time (waiting on the socket), and resolves with the answer's status. */
function post(port: number, signature: string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const request = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/api/github/webhooks",
      headers: { "content-type": "application/json", "content-length": mb * 1024 * 1024, ...(signature ? { "x-hub-signature-256": signature } : {}) },
    });
    request.on("response", (response) => {
      response.resume();
      resolve(String(response.statusCode));
      request.destroy();
    });
    request.on("error", (error) => resolve(error.message));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < mb) {
        sent++;
        if (!request.write(chunk)) return void request.once("drain", pump);
      }
      request.end();
    };
    pump();
  });
}
