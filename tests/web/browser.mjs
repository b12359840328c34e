// Debian's Chromium (/usr/bin/chromium), headless, driven over the DevTools
// protocol by playwright-core: no browser is ever downloaded. Each launch gets a
// new, empty profile under the given directory (the test's TMPDIR), removed on
// close, so nothing a run does is seen by the next.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

// What works here as root, on a machine that reaches only its package mirrors:
// no sandbox (root), no GPU, and none of the browser's own calls home.
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--no-proxy-server"];

export function haveChromium() {
  return existsSync(CHROMIUM);
}

// Chromium puts its single-instance socket in a directory under its TMPDIR, and
// a socket's path must fit in 108 bytes: under a deep TMPDIR (a test's own) it
// aborts. Its TMPDIR is then a new directory in /tmp, removed on close like the
// profile.
function browserTmp(under) {
  const fits = Buffer.byteLength(join(under, "chromium-tmp-XXXXXX",
                                      "org.chromium.Chromium.XXXXXX", "SingletonSocket")) < 100;
  return mkdtempSync(join(fits ? under : "/tmp", "chromium-tmp-"));
}

// { context, page, close() } — javaScript: false is a stranger with scripts off.
export async function openBrowser(under, { javaScript = true } = {}) {
  const profile = mkdtempSync(join(under, "chromium-profile-"));
  const tmp = browserTmp(under);
  const clean = () => {
    rmSync(profile, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  };
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: FLAGS, javaScriptEnabled: javaScript,
      colorScheme: "light", viewport: { width: 900, height: 900 }, timeout: 60000,
      env: { ...process.env, TMPDIR: tmp },
    });
  } catch (e) {
    clean();
    throw e;
  }
  context.setDefaultTimeout(30000);
  const page = context.pages()[0] || (await context.newPage());
  return {
    context, page,
    async close() {
      await context.close();
      clean();
    },
  };
}

// A full-page screenshot at path (its directory made first); returns the path.
export async function shoot(page, path) {
  await page.screenshot({ path, fullPage: true });
  return path;
}

// Answers a form as a person would: a select gets its option chosen, a group of
// checkboxes sharing a name gets exactly the listed values ticked, a single
// checkbox is ticked for true, anything else is typed into.
export async function answer(page, answers) {
  for (const [name, value] of Object.entries(answers)) {
    const controls = page.locator(`form [name="${name}"]`);
    const first = controls.first();
    const tag = await first.evaluate((el) => el.tagName + ":" + el.type);
    if (tag.startsWith("SELECT")) await first.selectOption(String(value));
    else if (tag === "INPUT:checkbox") await tick(controls, value);
    else await first.fill(String(value));
  }
}

async function tick(controls, value) {
  for (const box of await controls.all()) {
    const want = Array.isArray(value) ? value.includes(await box.getAttribute("value")) : !!value;
    await box.setChecked(want);
  }
}

// Clicks the button that posts the form, then waits for `next`, a selector only
// the answering page matches (the URL of a form's answer is the form's own, so
// it cannot say the page changed). Returns the answer's HTTP status.
export async function post(page, button, next) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.request().isNavigationRequest()),
    page.locator(button).click(),
  ]);
  await page.locator(next).first().waitFor();
  await page.waitForLoadState("load"); // the stylesheet too, before a screenshot
  return response.status();
}
