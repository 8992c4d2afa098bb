// onnxq report's pages as a user sees them: Debian's chromium, headless, driven by playwright-core
// (scripts/setup --test installs both). For the zoo model, a llama-shaped model (local, split into
// shards, and served by the loopback range server), its values, and compares of a copy with one
// damaged tensor (against the float32 source, and against the undamaged quantization), each page
// loads from file:// with no console error and no request, its map has one cell per (layer, kind),
// its table sorts and filters, its histograms and compare ranking are drawn.
// Environment: ONNXQ, TESTDATA, PYTHON (as the CLI tests have), CHROMIUM (default /usr/bin/chromium).
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const playwright = path.join(here, "node_modules", "playwright-core", "index.mjs");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
for (const needed of [playwright, CHROMIUM])
  if (!fs.existsSync(needed)) { console.error(`report_test: ${needed} is missing; run scripts/setup --test`); process.exit(1); }
const { chromium } = await import(playwright);
const ONNXQ = process.env.ONNXQ, TESTDATA = process.env.TESTDATA, PYTHON = process.env.PYTHON || "/usr/bin/python3";
if (!ONNXQ || !TESTDATA) throw new Error("ONNXQ and TESTDATA must be set");
for (const v of ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "HF_TOKEN"]) delete process.env[v];

const work = fs.mkdtempSync(path.join(os.tmpdir(), "onnxq-report-"));
let failures = 0, passes = 0, server = null;
function check(name, ok, detail = "") {
  if (ok) passes++;
  else { failures++; console.error(`FAIL: ${name}${detail ? ": " + detail : ""}`); }
}
function onnxq(...args) { return execFileSync(ONNXQ, ["-q", ...args], { cwd: work, encoding: "utf8" }); }

// The models: zoo.gguf, and make_models.py's float32 reference, Q4_K_M-like model and damaged copy.
const models = path.join(work, "models");
execFileSync(PYTHON, [path.join(here, "make_models.py"), ONNXQ, models, "4"]);
const LAYERS = 4, KINDS = ["attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down"];
const DAMAGED = "blk.1.ffn_up.weight";
const CHAT_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}</script><script>document.title='pwned'</script><!--";
onnxq("split", path.join(models, "model.gguf"), "-o", path.join(models, "shard"), "--max-tensors", "12");
const shards = fs.readdirSync(models).filter(n => n.startsWith("shard-")).sort();

// The loopback range server (tests/cli/range_server.py), stopped by its process id at the end.
async function startServer() {
  const portFile = path.join(work, "server.port");
  server = spawn(PYTHON, [path.join(here, "..", "cli", "range_server.py"), models, path.join(work, "server.log"), portFile],
                 { stdio: "inherit" });
  for (let i = 0; i < 100 && !(fs.existsSync(portFile) && fs.statSync(portFile).size); i++) await new Promise(r => setTimeout(r, 100));
  return `http://127.0.0.1:${fs.readFileSync(portFile, "utf8").trim()}`;
}
const url = await startServer();

const pages = {
  zoo: ["report", path.join(TESTDATA, "zoo.gguf"), "-o", "zoo.html", "--values", "q4_k.weight"],
  model: ["report", path.join(models, "model.gguf"), "-o", "model.html", "--values", "blk.0.*", "--threads", "2"],
  split: ["report", path.join(models, shards[1] ?? "missing"), "-o", "split.html"],
  remote: ["report", `${url}/files/model.gguf`, "-o", "remote.html"],
  compare: ["report", path.join(models, "damaged.gguf"), "--compare", path.join(models, "ref.gguf"), "-o", "compare.html"],
  requant: ["report", path.join(models, "damaged.gguf"), "--compare", path.join(models, "model.gguf"), "-o", "requant.html"],
};
let browser;
try {
  check("the split made several shards", shards.length >= 3, shards.join(" "));
  for (const [name, args] of Object.entries(pages)) onnxq(...args);

  // Without --values and --compare a remote model's header alone is read: far less than its tensors.
  const log = fs.readFileSync(path.join(work, "server.log"), "utf8").trim().split("\n").map(l => JSON.parse(l));
  const sent = log.filter(r => r.path.endsWith("/model.gguf")).reduce((n, r) => n + r.sent, 0);
  const modelSize = fs.statSync(path.join(models, "model.gguf")).size;
  check("remote: only the header was fetched", sent > 0 && sent < modelSize / 4, `${sent} of ${modelSize} bytes`);

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });

  // Opens a page from file://, with every console message, page error and request recorded.
  async function open(file) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const target = pathToFileURL(path.join(work, file)).href;
    const seen = { errors: [], requests: [] };
    page.on("console", m => { if (m.type() === "error" || m.type() === "warning") seen.errors.push(m.text()); });
    page.on("pageerror", e => seen.errors.push(String(e)));
    page.on("request", r => { if (r.url() !== target) seen.requests.push(r.url()); });
    await page.goto(target);
    await page.waitForSelector("body[data-rendered=true]", { timeout: 15000 }).catch(() => {
      throw new Error(`${file}: the page did not finish rendering; console: ${seen.errors.join(" | ")}`);
    });
    return { page, seen, context };
  }
  const cellCount = (page, sel = "#quant-map rect.cell") => page.locator(sel).count();
  async function column(page, table, key) {
    const index = await page.locator(`${table} thead th`).evaluateAll((ths, k) => ths.findIndex(th => th.dataset.key === k), key);
    return page.locator(`${table} tbody tr`).evaluateAll((trs, i) => trs.map(tr => tr.children[i].dataset.value), index);
  }
  const sortedBy = (values, dir, numeric) => values.every((v, i) => i === 0 ||
    (numeric ? (dir === "asc" ? Number(values[i - 1]) <= Number(v) : Number(values[i - 1]) >= Number(v))
             : (dir === "asc" ? values[i - 1] <= v : values[i - 1] >= v)));

  async function commonChecks(name, page, seen) {
    check(`${name}: no console error or warning`, seen.errors.length === 0, seen.errors.join(" | "));
    check(`${name}: no request left the page`, seen.requests.length === 0, seen.requests.join(" "));
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
    check(`${name}: the policy forbids the network`, /default-src 'none'/.test(csp) && !/connect-src|https?:/.test(csp), csp);
  }

  async function layeredModelChecks(name, page, seen, tensors) {
    await commonChecks(name, page, seen);
    check(`${name}: one map cell per (layer, kind)`, await cellCount(page) === LAYERS * KINDS.length, String(await cellCount(page)));
    check(`${name}: every cell is a tensor`, await cellCount(page, "#quant-map rect.cell.missing") === 0);
    const kinds = await page.locator("#quant-map rect.cell").evaluateAll(rs => [...new Set(rs.map(r => r.dataset.kind))]);
    check(`${name}: the map's kinds`, JSON.stringify(kinds) === JSON.stringify(KINDS), JSON.stringify(kinds));
    check(`${name}: tensors outside the layers beside the map`, await page.locator("#solo-tensors rect.solo").count() === 3);
    check(`${name}: the table lists every tensor`, await page.locator("#tensor-table tbody tr").count() === tensors);
    // Hovering a cell names its tensor, type and size.
    await page.locator('#quant-map rect[data-layer="2"][data-kind="ffn_down"]').hover();
    const tip = await page.locator("#tooltip").textContent();
    check(`${name}: hovering a cell names the tensor`, /blk\.2\.ffn_down\.weight/.test(tip) && /Q4_K|Q6_K/.test(tip) && /bytes/.test(tip), tip);
    check(`${name}: the chat template is shown as text, not run`,
          await page.locator("#chat-template-text").textContent() === CHAT_TEMPLATE && (await page.title()) !== "pwned");
  }

  // The zoo model: no layers, 38 tensors beside an empty map; a histogram for --values.
  {
    const { page, seen, context } = await open("zoo.html");
    await commonChecks("zoo", page, seen);
    check("zoo: no layer cells", await cellCount(page) === 0);
    check("zoo: every tensor beside the map", await page.locator("#solo-tensors rect.solo").count() === 38);
    check("zoo: the table lists every tensor", await page.locator("#tensor-table tbody tr").count() === 38);
    const bars = await page.locator('.values[data-name="q4_k.weight"] svg.histogram rect.bar').evaluateAll(rs => rs.map(r => Number(r.getAttribute("height"))));
    check("zoo: a value histogram is drawn for --values", bars.length >= 2 && bars.filter(h => h > 0).length >= 2, JSON.stringify(bars));
    // Sorting: bytes descending, then ascending; names ascending.
    await page.locator('#tensor-table th[data-key="bytes"]').click();
    const desc = await column(page, "#tensor-table", "bytes");
    check("zoo: sorted by bytes, largest first", sortedBy(desc, "desc", true) && desc[0] !== desc[desc.length - 1], desc.join(","));
    await page.locator('#tensor-table th[data-key="bytes"]').click();
    check("zoo: sorted by bytes, smallest first", sortedBy(await column(page, "#tensor-table", "bytes"), "asc", true));
    await page.locator('#tensor-table th[data-key="name"]').click();
    const names = await column(page, "#tensor-table", "name");
    check("zoo: sorted by name", sortedBy(names, "asc", false) && names[0] === "bf16.weight", names.slice(0, 3).join(","));
    await page.locator("#tensor-filter").fill("/^q4_/");
    const kept = await page.locator("#tensor-table tbody tr").evaluateAll(trs => trs.map(tr => tr.dataset.name).join(" "));
    check("zoo: the filter keeps the matching rows", kept === "q4_0.weight q4_1.weight q4_k.weight", kept);
    // The policy holds against the page's own code too: a fetch fails and nothing is requested.
    const before = seen.requests.length;
    const fetched = await page.evaluate(() => fetch("http://127.0.0.1:9/x").then(() => "fetched", () => "refused"));
    check("zoo: a fetch from the page is refused before any request", fetched === "refused" && seen.requests.length === before, fetched);
    await context.close();
  }

  for (const [name, file] of [["model", "model.html"], ["split", "split.html"], ["remote", "remote.html"]]) {
    const { page, seen, context } = await open(file);
    await layeredModelChecks(name, page, seen, 3 + LAYERS * KINDS.length);
    if (name === "model") {
      const histograms = await page.locator(".values svg.histogram").count();
      check("model: value and scale histograms for each tensor of --values", histograms === 2 * 7 + 2, String(histograms));
      const drawn = await page.locator('.values[data-name="blk.0.attn_q.weight"] svg.histogram rect.bar[height]').evaluateAll(
        rs => rs.filter(r => Number(r.getAttribute("height")) > 0).length);
      check("model: the histogram has bars", drawn >= 10, String(drawn));
    }
    await context.close();
  }

  // Compare: the damaged tensor ranks first, the map has one cell per (layer, kind).
  {
    const { page, seen, context } = await open("compare.html");
    await commonChecks("compare", page, seen);
    const first = await page.locator("#compare-table tbody tr").first().getAttribute("data-name");
    check("compare: the damaged tensor ranks first", first === DAMAGED, first);
    const nmse = await column(page, "#compare-table", "nmse");
    check("compare: sorted by normalized MSE", sortedBy(nmse.filter(v => v !== ""), "desc", true), nmse.slice(0, 4).join(","));
    check("compare: every shared tensor listed", nmse.length === 3 + LAYERS * KINDS.length);
    check("compare: one map cell per (layer, kind)", await cellCount(page, "#compare-map rect.cell") === LAYERS * KINDS.length);
    await context.close();
  }
  // Two quantizations of the same weights, one tensor apart: that tensor first, every other one exact.
  {
    const { page, seen, context } = await open("requant.html");
    await commonChecks("requant", page, seen);
    const names = await page.locator("#compare-table tbody tr").evaluateAll(trs => trs.map(tr => tr.dataset.name));
    const nmse = await column(page, "#compare-table", "nmse");
    check("requant: the damaged tensor ranks first", names[0] === DAMAGED, names[0]);
    check("requant: every other tensor without error", Number(nmse[0]) > 0 && nmse.slice(1).every(v => Number(v) === 0), nmse.slice(0, 3).join(","));
    await context.close();
  }
} finally {
  if (browser) await browser.close();
  if (server) { server.kill(); await new Promise(r => server.exitCode !== null ? r() : server.once("exit", r)); }
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
