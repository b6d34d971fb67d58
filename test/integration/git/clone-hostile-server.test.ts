import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone } from "../../../src/git/clone-repository.js";
import { FLUSH, pktLine } from "../../../src/git/pack/pkt-lines.js";
import { gitEnv } from "../../support/git-server.js";

// A git server that advertises one branch and answers the fetch with a pack a test makes byte by byte.
let HEAD = "1".repeat(40);
// What the server says it can do, and how it sends the pack: side band 1 in lines of `lineBytes`, progress between them.
let capabilities = "shallow side-band-64k ofs-delta no-progress";
let lineBytes = 65_000;
let progress = false;
const token = "ghs_hostile1234567890";

/** A pack entry's header: type in bits 4–6 of the first byte, the size in groups of 7 bits. */
function entryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

function packOf(entries: Buffer[]): Buffer {
  const head = Buffer.alloc(12);
  head.write("PACK", 0, "latin1");
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(entries.length, 8);
  const body = Buffer.concat([head, ...entries]);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

/** A delta that makes `size` bytes by inserting them (the base size says 0). */
function insertDelta(text: string): Buffer {
  return Buffer.from([0, text.length, text.length, ...Buffer.from(text)]);
}

let pack: Buffer = Buffer.alloc(0);
let server: http.Server;
let url: string;
let parent: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (request.url!.includes("/info/refs")) {
        response
          .writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" })
          .end(Buffer.concat([pktLine("# service=git-upload-pack\n"), FLUSH, pktLine(`${HEAD} refs/heads/main\0${capabilities}\n`), FLUSH]));
        return;
      }
      const lines = [pktLine(`shallow ${HEAD}\n`), FLUSH, pktLine("NAK\n")];
      for (let at = 0; at < pack.length; at += lineBytes) {
        const part = pack.subarray(at, at + lineBytes);
        lines.push(Buffer.concat([Buffer.from((part.length + 5).toString(16).padStart(4, "0")), Buffer.from([1]), part]));
        if (progress) lines.push(pktLine(`\u0002Counting objects: ${at}\r`));
      }
      response.writeHead(200, { "content-type": "application/x-git-upload-pack-result" }).end(Buffer.concat([...lines, FLUSH]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/octo/hostile.git`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => fs.rmSync(parent, { recursive: true, force: true }));

async function cloneFails(): Promise<Error> {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), "magis-hostile-"));
  let ran = false;
  const error = await withShallowClone({ url, token }, "main", async () => (ran = true), { parentDir: parent }).then(
    () => new Error("the clone succeeded"),
    (failure: Error) => failure,
  );
  expect(ran).toBe(false);
  expect(fs.readdirSync(parent)).toEqual([]);
  expect(error.message).not.toContain(token);
  return error;
}

describe("withShallowClone against a server sending a bad pack", () => {
  it("refuses a ref-delta whose base the pack does not hold", async () => {
    const delta = insertDelta("hello\n");
    pack = packOf([Buffer.concat([entryHeader(7, delta.length), Buffer.from("ab".repeat(20), "hex"), zlib.deflateSync(delta)])]);
    expect((await cloneFails()).message).toBe("corrupt pack: the delta at byte 12 names a base the pack does not hold");
  });

  it("refuses an ofs-delta whose base is itself, as a corrupt pack", async () => {
    const delta = insertDelta("hello\n");
    // Offset 0 back: the entry names its own start as its base.
    pack = packOf([Buffer.concat([entryHeader(6, delta.length), Buffer.from([0]), zlib.deflateSync(delta)])]);
    expect((await cloneFails()).message).toMatch(/^corrupt pack: /);
  });

  it("refuses an entry whose inflated size differs from its header", async () => {
    pack = packOf([Buffer.concat([entryHeader(3, 5), zlib.deflateSync(Buffer.from("hello world\n"))])]);
    expect((await cloneFails()).message).toBe("corrupt pack: the data at byte 13 inflates to more than the 5 bytes its entry declares");
  });
});

describe("withShallowClone against a server that sends progress on the old side band", () => {
  it("keeps only band 1 of 1000-byte lines and writes the files", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sideband-"));
    try {
      const git = (args: string[], input?: string) => execFileSync("git", args, { cwd: work, env: gitEnv(), input, maxBuffer: 64 << 20 });
      git(["init", "-q", "-b", "main"]);
      fs.writeFileSync(path.join(work, "a.py"), Array.from({ length: 3000 }, (_, i) => `value_${i} = ${i}\n`).join(""));
      git(["add", "-A"]);
      git(["commit", "-q", "-m", "one"]);
      HEAD = git(["rev-parse", "HEAD"]).toString().trim();
      pack = git(["pack-objects", "--stdout", "-q"], git(["rev-list", "--objects", "HEAD"]).toString());
      capabilities = "shallow side-band ofs-delta";
      lineBytes = 995;
      progress = true;
      parent = fs.mkdtempSync(path.join(os.tmpdir(), "magis-hostile-"));
      const text = await withShallowClone({ url, token }, "main", async ({ dir }) => fs.readFileSync(path.join(dir, "a.py"), "utf8"), { parentDir: parent });
      expect(text).toBe(fs.readFileSync(path.join(work, "a.py"), "utf8"));
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
