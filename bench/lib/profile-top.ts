// Where a CPU profile's time went: self time by function and by source file, most first.
//
//   npx tsx bench/lib/profile-top.ts FILE.cpuprofile [--top 25]
import fs from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "25" } } });
if (positionals.length !== 1) {
  console.error("usage: npx tsx bench/lib/profile-top.ts FILE.cpuprofile [--top 25] (a profile from node --cpu-prof or bench:clone --profile)");
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(positionals[0]!, "utf8")) as Profile;
const top = Number(values.top);

/** The last two parts of a script's path, or what V8 names code without one ("(garbage collector)", "(idle)"). */
function fileOf(node: ProfileNode): string {
  return node.callFrame.url ? node.callFrame.url.split("/").slice(-2).join("/") : node.callFrame.functionName;
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
for (const [i, id] of profile.samples.entries()) {
  const node = byId.get(id)!;
  const micros = profile.timeDeltas[i] ?? 0;
  const name = `${node.callFrame.functionName || "(anonymous)"} ${fileOf(node)}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  byFile.set(fileOf(node), (byFile.get(fileOf(node)) ?? 0) + micros);
  total += micros;
}

function print(title: string, table: Map<string, number>): void {
  console.log(title);
  for (const [name, micros] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(micros / 1000).toFixed(0).padStart(8)} ms  ${name}`);
}
console.log(`${(total / 1000).toFixed(0)} ms sampled`);
print("\nself time by function:", byFunction);
print("\nself time by file:", byFile);
