import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitHttpWithTimeout } from "../../../src/git/git-http-with-timeout.js";
import { fetchShallowPack } from "../../../src/git/pack/fetch-shallow-pack.js";
import { FLUSH, pktLine } from "../../../src/git/pack/pkt-lines.js";

// A server that answers as a broken or refusing git server would, one way per repository path.
const HEAD = "1".repeat(40);
const advertisement = Buffer.concat([
  pktLine("# service=git-upload-pack\n"),
  FLUSH,
  pktLine(`${HEAD} refs/heads/main\0shallow side-band-64k ofs-delta no-progress\n`),
  FLUSH,
]);
const answers: Record<string, { type: string; refs: Buffer; pack?: Buffer }> = {
  "/html": { type: "text/html", refs: Buffer.from("<html>sign in</html>") },
  "/refused": {
    type: "application/x-git-upload-pack-advertisement",
    refs: Buffer.concat([pktLine("# service=git-upload-pack\n"), FLUSH, pktLine("ERR access denied or repository not exported\n")]),
  },
  "/fails": {
    type: "application/x-git-upload-pack-advertisement",
    refs: advertisement,
    pack: Buffer.concat([pktLine(`shallow ${HEAD}\n`), FLUSH, pktLine("NAK\n"), pktLine("\u0003out of memory\n")]),
  },
  // Pack data without end: 1.5 MiB in lines of 60,000 bytes, and more would follow.
  "/endless": {
    type: "application/x-git-upload-pack-advertisement",
    refs: advertisement,
    pack: Buffer.concat([
      FLUSH,
      pktLine("NAK\n"),
      ...Array.from({ length: 26 }, () => Buffer.concat([Buffer.from((60_005).toString(16).padStart(4, "0")), Buffer.from([1]), Buffer.alloc(60_000, 7)])),
    ]),
  },
  "/empty": { type: "application/x-git-upload-pack-advertisement", refs: advertisement, pack: Buffer.concat([FLUSH, pktLine("NAK\n"), FLUSH]) },
};

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url!, "http://x");
    const repo = url.pathname.replace(/\/(info\/refs|git-upload-pack)$/, "");
    const answer = answers[repo]!;
    request.resume();
    request.on("end", () => {
      if (url.pathname.endsWith("/info/refs")) {
        response.writeHead(200, { "content-type": answer.type }).end(answer.refs);
      } else {
        response.writeHead(200, { "content-type": "application/x-git-upload-pack-result" }).end(answer.pack);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("fetchShallowPack against servers that do not give a pack", () => {
  it.each([
    ["/html", "did not answer as a git smart HTTP server (content type 'text/html')"],
    ["/refused", "refused to list the repository's branches: access denied or repository not exported"],
    ["/fails", "failed while sending the pack: out of memory"],
    ["/empty", "ended its answer without a pack"],
  ])("%s: says what the server did", async (repo, message) => {
    await expect(fetchShallowPack(gitHttpWithTimeout(5_000), { url: `${base}${repo}`, token: "ghs_secret", branch: "main" })).rejects.toThrow(message);
    await expect(fetchShallowPack(gitHttpWithTimeout(5_000), { url: `${base}${repo}`, token: "ghs_secret", branch: "main" })).rejects.not.toThrow("ghs_secret");
  });
});

describe("fetchShallowPack with a limit", () => {
  it("stops reading a server that sends more pack than the limit allows", async () => {
    await expect(
      fetchShallowPack(gitHttpWithTimeout(5_000), { url: `${base}/endless`, token: "ghs_secret", branch: "main", maxBytes: 2 ** 20 }),
    ).rejects.toThrow(`the git server at ${base}/endless sent more than 1 MB for one commit, more than the repository's size allows; the clone stopped there`);
  });
});
