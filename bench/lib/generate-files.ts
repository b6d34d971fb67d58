import { REPO_FILES } from "../../test/e2e/script-resolve.js";

/** REPO_FILES plus `count` generated source files in nested folders, each a few small functions. */
export function generateFiles(count: number): Record<string, string> {
  const files: Record<string, string> = { ...REPO_FILES };
  for (let i = 0; i < count; i++) {
    const dir = `src/module${Math.floor(i / 100)}/part${Math.floor(i / 10) % 10}`;
    const name = `handler_${i}`;
    files[`${dir}/${name}.js`] = [
      `// Handles request kind ${i}.`,
      `export function ${name}(request) {`,
      `  const value = request.values[${i % 7}] ?? ${i};`,
      `  return { kind: ${i}, total: value * ${(i % 13) + 1} };`,
      `}`,
      `export function describe${i}() {`,
      `  return "handler ${i} multiplies by ${(i % 13) + 1}";`,
      `}`,
      ``,
    ].join("\n");
  }
  return files;
}
