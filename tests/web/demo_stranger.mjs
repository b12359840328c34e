// make demo's stranger, in headless Chromium: opens a form on a running box,
// answers it, submits, follows the verification link the box wrote to its log
// (the demo's box has no [mail]), confirms, and keeps a screenshot of each page.
//
//   node tests/web/demo_stranger.mjs FORM-URL BOX-LOG SHOTS-DIR ANSWERS-JSON
//
// Prints each screenshot's path. The browser's profile goes under TMPDIR and is
// removed when it closes. Exit 1, saying why, if any page is not what it should be.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBrowser, shoot, answer, post } from "./browser.mjs";

const [url, log, shots, answers] = process.argv.slice(2);
if (!answers) {
  console.error("usage: demo_stranger.mjs FORM-URL BOX-LOG SHOTS-DIR ANSWERS-JSON");
  process.exit(2);
}

// The newest verification link the box logged after `seen` earlier ones.
async function loggedLink(seen) {
  for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
    const links = readFileSync(log, "utf8").split("\n").filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l)).filter((e) => e.event === "verification_link");
    if (links.length > seen) return links.at(-1).link;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the box logged no verification link in ${log}`);
}

function linksSoFar() {
  return readFileSync(log, "utf8").split("\n").filter((l) => l.includes('"verification_link"')).length;
}

async function visit(page) {
  const kept = async (name) => console.log("  " + (await shoot(page, join(shots, name))));
  await page.goto(url);
  await kept("01-form.png");
  await answer(page, JSON.parse(answers));
  await kept("02-filled.png");
  const seen = linksSoFar();
  const status = await post(page, "form button[type=submit]", "h1:text-is('Check your email')");
  if (status !== 200) throw new Error(`the form answered ${status}`);
  await kept("03-check-email.png");
  await page.goto(await loggedLink(seen));
  await page.locator("h1:text-is('Confirm your email address')").waitFor();
  await kept("04-confirm.png");
  await post(page, "button:text-is('Confirm')", "h1:has-text('Thank')");
  await kept("05-confirmed.png");
}

const browser = await openBrowser(tmpdir());
try {
  await visit(browser.page);
} catch (e) {
  console.error(`the browser's visit failed: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
