// The pages the box renders, as tests/support/box_pages_dump writes them for the
// starter manifests (make web-test names the dumper in BOX_PAGES_DUMP).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "types");

// { pages: [{ name, html }], asset(name) } — read into memory, the files removed.
export function rendered() {
  const dump = process.env.BOX_PAGES_DUMP;
  assert.ok(dump, "BOX_PAGES_DUMP names the page dumper (make web-test sets it)");
  const dir = mkdtempSync(join(tmpdir(), "mecha-pages-"));
  try {
    execFileSync(dump, [fixtures, dir], { stdio: "inherit" });
    const read = (name) => readFileSync(join(dir, name), "utf8");
    const names = read("index.txt").split("\n").filter(Boolean);
    const pages = names.map((name) => ({ name, html: read(name) }));
    const assets = { "form.js": read("form.js"), "form.css": read("form.css") };
    return { pages, page: (name) => pages.find((p) => p.name === name).html, asset: (n) => assets[n] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
