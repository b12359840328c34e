// A real `mecha box serve` on loopback for the browser tests, with its mail caught
// by the SMTP sink the pytest suite uses (tests/support/smtp_sink.py): the same
// parts tests/cli/box_fixture.py starts, started from node.
//
// startBox(dir) writes box.toml (SQLite under dir/data, a free port on 127.0.0.1,
// [mail] pointed at the sink), adds the owner `ada` with `mecha box owner add`
// (its first keys in .keys), starts the server and waits for its "listening"
// line. .stop() ends the two processes it started, by their pids, and waits.
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync, openSync, closeSync } from "node:fs";
import { createServer } from "node:net";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MECHA = process.env.MECHA_BIN || join(ROOT, "build", "test", "mecha");
const PYTHON = "/usr/bin/python3"; // Debian's, which has aiosmtpd
const SINK = join(ROOT, "tests", "support", "smtp_sink.py");

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Resolves when test(text so far) holds for what the child wrote, rejects if
// it exits first or after `ms`.
function waitFor(child, read, test, what, ms = 30000) {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (fn, v) => { if (!done) { done = true; clearInterval(poll); clearTimeout(limit); fn(v); } };
    const check = () => { const t = read(); if (test(t)) finish(resolve, t); };
    const poll = setInterval(check, 25);
    const limit = setTimeout(() => finish(reject, new Error(`${what}: not ready in ${ms} ms\n${read()}`)), ms);
    child.once("exit", (code) => finish(reject, new Error(`${what} exited ${code}\n${read()}`)));
  });
}

function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 20000);
    child.once("exit", () => { clearTimeout(force); resolve(); });
    child.kill("SIGTERM");
  });
}

async function startSink(dir) {
  mkdirSync(dir, { recursive: true });
  const child = spawn(PYTHON, [SINK, dir], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (b) => { out += b; });
  await waitFor(child, () => out, (t) => /^\d+\n/.test(t), "the SMTP sink");
  return { child, port: Number(out.trim()), dir };
}

function mecha(config, ...args) {
  return execFileSync(MECHA, ["box", ...args, "--config", config], { encoding: "utf8" });
}

class Box {
  constructor(dir, sink) {
    this.dir = dir;
    this.sink = sink;
    this.config = join(dir, "box.toml");
    this.stderr = join(dir, "stderr.log");
  }

  writeConfig(port) {
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    writeFileSync(this.config, [
      `listen = "127.0.0.1:${port}"`, `data = "${join(this.dir, "data")}"`,
      "[mail]", `smtp_url = "smtp://127.0.0.1:${this.sink.port}"`,
      `from = "Ada's box <box@example.org>"`,
      "[limits]", "requests_per_minute = 100000", ""].join("\n"));
  }

  log() { return readFileSync(this.stderr, "utf8"); }

  async serve() {
    for (let attempt = 0; ; attempt++) { // another process may take the free port first
      this.writeConfig(await freePort());
      const err = openSync(this.stderr, "w");
      this.child = spawn(MECHA, ["box", "serve", "--config", this.config],
                         { stdio: ["ignore", "ignore", err] });
      closeSync(err);
      try {
        return await waitFor(this.child, () => this.log(), (t) => t.includes('"event":"listening"'),
                             "mecha box serve");
      } catch (e) {
        await stopChild(this.child);
        if (attempt >= 9) throw e;
      }
    }
  }

  async api(method, path, key, body) {
    const headers = { Authorization: `Bearer ${this.keys[key]}` };
    const r = await fetch(this.url + path, { method, headers, body });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return JSON.parse(text);
  }

  putType(manifest) {
    const id = /^id = "([^"]+)"/m.exec(manifest)[1];
    return this.api("PUT", `/v1/types/${id}`, "release", manifest);
  }

  pushSlots(instrument, slots) {
    const push = { generated_at: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
                   horizon_days: 60, slots };
    return this.api("PUT", `/v1/instruments/${instrument}/slots`, "slots", JSON.stringify(push));
  }

  // What the drain would take: every queued record, its payload parsed.
  async queue() {
    const { records } = await this.api("GET", "/v1/queue?since=0", "drain");
    return records.map((r) => ({ ...r, payload: JSON.parse(r.payload) }));
  }

  // [{ headers, body }] of each mail the sink received, in arrival order, the
  // body quoted-printable decoded.
  mails() {
    return readdirSync(this.sink.dir).filter((n) => n.endsWith(".eml")).sort()
      .map((n) => mailParts(readFileSync(join(this.sink.dir, n), "latin1")));
  }

  async stop() {
    await stopChild(this.child);
    await stopChild(this.sink.child);
  }
}

function mailParts(raw) {
  const [headers, ...rest] = raw.replace(/\r\n/g, "\n").split("\n\n");
  const body = rest.join("\n\n").replace(/=\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  return { headers, body: Buffer.from(body, "latin1").toString("utf8") };
}

export async function startBox(dir) {
  mkdirSync(dir, { recursive: true });
  const box = new Box(dir, await startSink(join(dir, "smtp")));
  try {
    box.writeConfig(await freePort());
    box.keys = JSON.parse(mecha(box.config, "owner", "add", "ada", "--json"));
    await box.serve();
    return box;
  } catch (e) {
    await box.stop();
    throw e;
  }
}
