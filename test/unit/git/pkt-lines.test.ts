import { describe, expect, it } from "vitest";
import { FLUSH, PktLineReader, pktLine } from "../../../src/git/pack/pkt-lines.js";

async function* parts(bytes: Buffer, sizes: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

async function readAll(reader: PktLineReader): Promise<string[]> {
  const lines: string[] = [];
  for (let line = await reader.next(); line !== undefined; line = await reader.next()) lines.push(line === "flush" ? "<flush>" : line.toString());
  return lines;
}

describe("pkt-lines", () => {
  const stream = Buffer.concat([pktLine("# service=git-upload-pack\n"), FLUSH, pktLine("want abc\n"), pktLine("x".repeat(300)), FLUSH]);

  it("writes the length in four hex digits, counting themselves", () => {
    expect(pktLine("done\n").toString()).toBe("0009done\n");
  });

  it.each([[[1]], [[3, 7]], [[4]], [[1000]]])("reads the same lines whatever the parts' sizes (%j)", async (sizes) => {
    expect(await readAll(new PktLineReader(parts(stream, sizes), "test"))).toEqual([
      "# service=git-upload-pack\n",
      "<flush>",
      "want abc\n",
      "x".repeat(300),
      "<flush>",
    ]);
  });

  it("refuses a length that is not hex, and a stream cut inside a line", async () => {
    await expect(readAll(new PktLineReader(parts(Buffer.from("zz12abc"), [7]), "the refs"))).rejects.toThrow(
      "the refs: the git server sent 'zz12' where a pkt-line length belongs",
    );
    await expect(readAll(new PktLineReader(parts(Buffer.from("000aabc"), [2]), "the pack"))).rejects.toThrow(
      "the pack: the git server's answer ended in the middle of a line",
    );
  });
});
