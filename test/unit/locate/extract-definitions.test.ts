import { describe, expect, it } from "vitest";
import { extractDefinitions } from "../../../src/pipeline/locate/extract-definitions.js";

describe("extractDefinitions", () => {
  it("finds Python classes, functions and methods", () => {
    const text = "class Session(SessionRedirectMixin):\n    def merge_environment_settings(self, url):\n        pass\n\nasync def fetch():\n    pass\n";
    expect(extractDefinitions(text, "requests/sessions.py")).toEqual(["Session", "merge_environment_settings", "fetch"]);
  });

  it("finds TypeScript exports, types and class methods, but not control flow", () => {
    const text = [
      "export interface Options { retries: number }",
      "export type Mode = 'a' | 'b';",
      "export async function createLlm(options: Options) {",
      "  if (options.retries) {",
      "  }",
      "}",
      "export class Client {",
      "  async ask(request: Request): Promise<Answer> {",
      "  }",
      "}",
      "const helper = () => 1;",
    ].join("\n");
    expect(extractDefinitions(text, "src/client.ts")).toEqual(["Options", "Mode", "createLlm", "Client", "helper", "ask"]);
  });

  it("finds Java's and C#'s classes and methods behind modifiers, annotations and return types, but not calls", () => {
    const java = [
      "package p;",
      "@Deprecated",
      "public final class Foo extends Bar {",
      "  @Override",
      "  public int compute(int x) {",
      "    return helper(x);",
      "  }",
      "  private static List<Map<String, Integer>> load(String path) throws IOException {",
      "    int y = compute(1);",
      "    log(y);",
      "    if (y > 0) { return parse(y); }",
      '    else if (y < 0) { throw new IllegalStateException("negative"); }',
      "  }",
      "  abstract void run();",
      "}",
      "record Point(int x, int y) {}",
    ].join("\n");
    expect(extractDefinitions(java, "src/main/java/p/Foo.java")).toEqual(["Foo", "Point", "compute", "load"]);
    const csharp =
      "namespace N {\n  public sealed class Foo : Bar {\n    public async Task<int> ComputeAsync(int x)\n    {\n      return await Other(x);\n    }\n    internal static void Helper() { }\n  }\n}\n";
    expect(extractDefinitions(csharp, "src/Foo.cs")).toEqual(["Foo", "ComputeAsync", "Helper"]);
    // An expression body ends in `;` and is still a definition; a generic method's type parameters come before its type.
    expect(extractDefinitions("class A {\n    public int Twice(int x) => x * 2;\n    int Half(int x);\n}\n", "src/A.cs")).toEqual(["A", "Twice"]);
    const generic = "class A {\n    public static <K, V> Map<K, V> pairOf(K k, V v) {\n    }\n    public <T> T get(Class<T> type) {\n    }\n}\n";
    expect(extractDefinitions(generic, "src/A.java")).toEqual(["A", "pairOf", "get"]);
  });

  it("finds C and C++ functions by their return type, including Class::method, but not prototypes, calls or statements", () => {
    const c = [
      "#include <stdio.h>",
      "static int parse_header(const char *line, size_t n)",
      "{",
      "  return count_lines(line);",
      "}",
      "int prototype_only(int);",
      "char *make_buffer(void) {",
      '  printf("x");',
      "  copy_into(a,",
      "    b);",
      "  return NULL;",
      "}",
    ].join("\n");
    expect(extractDefinitions(c, "src/http.c")).toEqual(["parse_header", "make_buffer"]);
    // GNU's style puts the return type on the line above; a macro in capitals at a line's start is no function.
    expect(extractDefinitions("static int\nparse_header (const char *line)\n{\n}\nSYSCALL_DEFINE1(close, int, fd)\n{\n}\n", "src/http.c")).toEqual([
      "parse_header",
    ]);
    expect(extractDefinitions("Server::Server(int port) : port_(port) {}\n", "src/server.cpp")).toEqual(["Server"]);
    const cpp =
      "void Server::close() {\n  std::cout << describe(x);\n}\nstd::vector<int> Server::list(int n) const {\n}\ntemplate <typename Char> struct basic_view {\n  template <typename T> auto format(T value) -> Char {\n  }\n};\n";
    expect(extractDefinitions(cpp, "src/server.cpp")).toEqual(["basic_view", "close", "list", "format"]);
  });

  it("finds Kotlin's, Swift's, PHP's and Ruby's definitions with their modifiers and receivers", () => {
    const kotlin =
      "data class User(val name: String)\nclass Foo : Bar() {\n  override fun compute(y: Int): Int { return y }\n  private suspend fun load() {}\n}\nfun helper(): Int = 1\nfun <T> List<T>.second(): T = this[1]\nobject Registry {}\n";
    expect(extractDefinitions(kotlin, "src/Foo.kt")).toEqual(["Foo", "User", "compute", "load", "helper", "second", "Registry"]);
    const swift = "public final class Foo: Bar {\n  public func compute(y: Int) -> Int { return y }\n}\nprotocol Shape {}\nfunc helper() -> Int { 1 }\n";
    expect(extractDefinitions(swift, "Sources/Foo.swift")).toEqual(["helper", "Foo", "compute", "Shape"]);
    const php = "<?php\nabstract class Repo {\n  public function find($id) {}\n  protected static function build() {}\n}\n";
    expect(extractDefinitions(php, "src/Repo.php")).toEqual(["Repo", "find", "build"]);
    expect(extractDefinitions("class Foo\n  def self.build\n  end\nend\n", "lib/foo.rb")).toEqual(["Foo", "build"]);
    expect(extractDefinitions("expect class FileSystem\npublic actual fun openRead(path: Path): Source = TODO()\n", "src/FileSystem.kt")).toEqual([
      "FileSystem",
      "openRead",
    ]);
    expect(extractDefinitions("#!/bin/sh\nbuild_docs() {\n  make html\n}\nfunction clean {\n  rm -rf _build\n}\nbuild_docs\n", "scripts/docs.sh")).toEqual([
      "clean",
      "build_docs",
    ]);
  });
});
