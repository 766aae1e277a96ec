// Opens every page of the built book in headless Chromium and checks what a reader would see.
//
//   node scripts/browser/check_book.mjs <url> <html-dir> [options]
//
// <url> serves <html-dir> (scripts/test.sh serves it on 127.0.0.1). The pages are the .html
// files under <html-dir>, less print.html (every page again, and it opens the print dialog),
// toc.html (the sidebar for readers without JavaScript) and 404.html (not a page of the book).
// On each page:
//   - the document has a title and the main heading (<h1> in <main>) shows text;
//   - a page whose markdown source has N fenced code blocks shows at least N <pre><code>,
//     none of them empty (the source is <src>/X.md for X.html, <src>/X/README.md for X/index.html);
//   - no console message of type error and no uncaught exception (pageerror);
//   - no request to the server fails (no answer, or status 4xx/5xx);
//   - every <img> has loaded and decoded (naturalWidth > 0);
//   - no fold (<details>) shows the body of the page's own exercise's functions unless its
//     summary says it is an answer: a reader opens a "diff" fold without expecting the solution
//     in it. A chapter's page X/index.html has the functions of chapters/X/src/exercise.rs.
// Then the search: on the index page, press `s`, type the term, and some result must link to
// the expected page. Last, full-page screenshots of the chosen pages are saved as PNG.
//
// Options (the defaults are this book's):
//   --src DIR                 markdown sources (default: chapters/)
//   --search TERM=PAGE        term to search for and the page a result must link to
//                             (default: tryLockPhase=ch05-phase/index.html)
//   --no-search               skip the search
//   --search-only             only the search, no page checks (the self-test uses it)
//   --screenshots PAGE,PAGE   pages to screenshot (default: introduction.html,ch05-phase/index.html)
//   --no-screenshots          take none
//   --out DIR                 where screenshots go (default: target/browser/)
//   --exercise-fns NAME,NAME  the exercise functions to look for in every page's folds
//                             (default: each chapter page's own, from its exercise.rs)
//
// Prints one line per page and a summary; exits 1 if anything failed, 2 on bad arguments.
import { readFileSync, readdirSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function usage(message) {
  console.error(`check_book: ${message}`);
  console.error('usage: node scripts/browser/check_book.mjs <url> <html-dir> [--src DIR] [--search TERM=PAGE | --no-search]');
  console.error('         [--search-only] [--screenshots PAGE,PAGE | --no-screenshots] [--out DIR]');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {
    src: join(root, 'chapters'),
    search: { term: 'tryLockPhase', page: 'ch05-phase/index.html' },
    searchOnly: false,
    screenshots: ['introduction.html', 'ch05-phase/index.html'],
    out: join(root, 'target/browser'),
    exerciseFns: null,
  };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${arg} needs a value`));
    if (arg === '--src') opts.src = resolve(value());
    else if (arg === '--exercise-fns') opts.exerciseFns = value().split(',').filter(Boolean);
    else if (arg === '--search') {
      const [term, page] = value().split('=');
      if (!term || !page) usage('--search takes TERM=PAGE');
      opts.search = { term, page };
    } else if (arg === '--no-search') opts.search = null;
    else if (arg === '--search-only') opts.searchOnly = true;
    else if (arg === '--screenshots') opts.screenshots = value().split(',').filter(Boolean);
    else if (arg === '--no-screenshots') opts.screenshots = [];
    else if (arg === '--out') opts.out = resolve(value());
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else positional.push(arg);
  }
  if (positional.length !== 2) usage('expected <url> and <html-dir>');
  const [url, htmlDir] = positional;
  opts.base = new URL(url.endsWith('/') ? url : `${url}/`);
  opts.htmlDir = resolve(htmlDir);
  if (!existsSync(opts.htmlDir)) usage(`${htmlDir}: no such folder`);
  if (opts.searchOnly && !opts.search) usage('--search-only with --no-search checks nothing');
  if (!existsSync(opts.src)) usage(`--src ${opts.src}: no such folder`);
  return opts;
}

// Every .html file under dir, as paths relative to it with forward slashes, sorted.
const NOT_PAGES = new Set(['print.html', 'toc.html', '404.html']);
function findPages(dir, sub = '') {
  const pages = [];
  for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
    const rel = sub ? `${sub}/${entry.name}` : entry.name;
    if (entry.isDirectory()) pages.push(...findPages(dir, rel));
    else if (entry.name.endsWith('.html') && !NOT_PAGES.has(rel)) pages.push(rel);
  }
  return pages.sort();
}

// The markdown a page was rendered from, or null (the book's index.html is a copy of its first
// chapter and has no file of its own).
function sourceOf(page, srcDir) {
  const candidates = page.endsWith('/index.html')
    ? [page.replace(/index\.html$/, 'README.md'), page.replace(/\.html$/, '.md')]
    : [page.replace(/\.html$/, '.md')];
  const found = candidates.map((c) => join(srcDir, ...c.split('/'))).find((p) => existsSync(p));
  return found ? readFileSync(found, 'utf8') : null;
}

// Fenced code blocks in markdown: an opening ``` or ~~~ line, closed by a line of the same
// character at least as long. Indented code blocks are not counted (so the rule is "at least").
function countFencedBlocks(markdown) {
  let count = 0;
  let open = null;
  for (const line of markdown.split('\n')) {
    const m = line.match(/^\s*(`{3,}|~{3,})(.*)$/);
    if (!m) continue;
    if (open === null) {
      open = m[1];
      count++;
    } else if (m[1][0] === open[0] && m[1].length >= open.length && m[2].trim() === '') {
      open = null;
    }
  }
  return count;
}

// A fresh tab that records console errors, uncaught exceptions and failed same-origin requests
// into problems (a list of strings).
async function openTab(context, base, problems) {
  const tab = await context.newPage();
  tab.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  tab.on('pageerror', (err) => problems.push(`uncaught exception: ${err.message}`));
  const sameOrigin = (url) => new URL(url).origin === base.origin;
  const path = (url) => new URL(url).pathname;
  tab.on('requestfailed', (req) => {
    if (sameOrigin(req.url())) problems.push(`request failed: ${path(req.url())} (${req.failure()?.errorText})`);
  });
  tab.on('response', (res) => {
    if (sameOrigin(res.url()) && res.status() >= 400) problems.push(`HTTP ${res.status()}: ${path(res.url())}`);
  });
  return tab;
}

// The functions the reader writes on `page`: every `fn NAME` of its chapter's exercise stub
// (none for a page that is not a chapter's), or the ones given with --exercise-fns.
function exerciseFunctions(opts, page) {
  if (opts.exerciseFns) return opts.exerciseFns;
  const stub = join(root, 'chapters', page.split('/')[0], 'src', 'exercise.rs');
  if (!page.includes('/') || !existsSync(stub)) return [];
  return [...readFileSync(stub, 'utf8').matchAll(/\bfn\s+([a-z_][a-z0-9_]*)/g)].map((m) => m[1]);
}

// The folds (<details>) that show an exercise function's body (`fn NAME ... {` and at least three
// lines before its closing brace: a one-line forwarder is no answer) while their summary does
// not call them an answer. Runs in the browser.
function unmarkedAnswerFolds(names) {
  const found = [];
  const bodyLines = (text, open) => { // lines between the brace at `open` and its match
    let depth = 0;
    for (let i = open; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) return text.slice(open, i).split('\n').length - 1;
    }
    return text.slice(open).split('\n').length;
  };
  for (const fold of document.querySelectorAll('main details')) {
    const summary = fold.querySelector('summary')?.textContent ?? '';
    if (/answer/i.test(summary)) continue;
    const text = fold.textContent;
    for (const name of names) {
      const opening = new RegExp(`\\bfn\\s+${name}\\b[^;{\\n]*\\{`, 'g');
      if ([...text.matchAll(opening)].some((m) => bodyLines(text, m.index + m[0].length - 1) >= 3)) {
        found.push(`an unmarked fold ("${summary.trim().slice(0, 60)}") shows the body of the exercise's ${name}: say in its summary that it holds the answer, or leave the body out`);
      }
    }
  }
  return found;
}

// What the page shows, read in the browser after it has loaded.
function inspectPage() {
  const main = document.querySelector('main');
  const scope = main ?? document.body;
  const h1 = scope.querySelector('h1');
  const codes = [...scope.querySelectorAll('pre > code')];
  const images = [...document.images];
  for (const img of images) img.loading = 'eager'; // lazy images below the fold load too
  return Promise.all(images.map((img) => img.decode().catch(() => {}))).then(() => ({
    title: document.title.trim(),
    heading: h1 ? h1.innerText.trim() : null,
    codeBlocks: codes.length,
    images: images.length,
    emptyCodeBlocks: codes.filter((c) => c.textContent.trim() === '').length,
    brokenImages: images.filter((img) => !(img.complete && img.naturalWidth > 0)).map((img) => img.getAttribute('src')),
  }));
}

// Checks one page; returns its report lines and how many problems it has.
async function checkPage(context, opts, page, shoot) {
  const problems = [];
  const tab = await openTab(context, opts.base, problems);
  let seen = null;
  try {
    await tab.goto(new URL(page, opts.base).href, { waitUntil: 'networkidle' });
    seen = await tab.evaluate(inspectPage);
    if (!seen.title) problems.push('the document has no title');
    if (seen.heading === null) problems.push('no <h1> heading');
    else if (!seen.heading) problems.push('the <h1> heading shows no text');
    const markdown = sourceOf(page, opts.src);
    const expected = markdown === null ? 0 : countFencedBlocks(markdown);
    if (seen.codeBlocks < expected) {
      problems.push(`shows ${seen.codeBlocks} code blocks, its markdown source has ${expected}`);
    }
    if (seen.emptyCodeBlocks) problems.push(`${seen.emptyCodeBlocks} code block(s) are empty`);
    for (const src of seen.brokenImages) problems.push(`broken image: ${src}`);
    problems.push(...(await tab.evaluate(unmarkedAnswerFolds, exerciseFunctions(opts, page))));
    if (shoot) {
      rmSync(shoot, { force: true }); // no stale picture from an earlier run
      await tab.screenshot({ path: shoot, fullPage: true });
    }
  } catch (err) {
    problems.push(`could not check: ${err.message.split('\n')[0]}`);
  } finally {
    await tab.close();
  }
  const lines = problems.length === 0
    ? [`ok    ${page}  "${seen.heading}"  code blocks: ${seen.codeBlocks}  images: ${seen.images}`]
    : [`FAIL  ${page}`, ...problems.map((p) => `        ${p}`)];
  return { lines, problems: problems.length, shot: shoot && existsSync(shoot) ? shoot : null };
}

// mdBook's search as a reader uses it: `s` opens the search bar, typing searches.
async function checkSearch(context, opts) {
  const { term, page } = opts.search;
  const problems = [];
  const tab = await openTab(context, opts.base, problems);
  const wanted = new URL(page, opts.base).pathname.replace(/index\.html$/, '');
  let links = [];
  try {
    await tab.goto(opts.base.href, { waitUntil: 'networkidle' });
    await tab.keyboard.press('s');
    const bar = tab.locator('#mdbook-searchbar');
    await bar.waitFor({ state: 'visible', timeout: 5000 });
    await bar.pressSequentially(term);
    const results = tab.locator('#mdbook-searchresults li a');
    await results.first().waitFor({ timeout: 5000 }).catch(() => {});
    links = await results.evaluateAll((as) => as.map((a) => a.href));
    const paths = links.map((href) => new URL(href).pathname.replace(/index\.html$/, ''));
    if (links.length === 0) problems.push(`no result for "${term}"`);
    else if (!paths.includes(wanted)) {
      problems.push(`no result for "${term}" links to ${page}; the results link to: ${[...new Set(paths)].join(', ')}`);
    }
  } catch (err) {
    problems.push(`could not search: ${err.message.split('\n')[0]}`);
  } finally {
    await tab.close();
  }
  const lines = problems.length === 0
    ? [`ok    search "${term}": ${links.length} results, one links to ${page}`]
    : [`FAIL  search "${term}"`, ...problems.map((p) => `        ${p}`)];
  return { lines, problems: problems.length };
}

const TABS = 4;

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const pages = opts.searchOnly ? [] : findPages(opts.htmlDir);
  if (!opts.searchOnly && pages.length === 0) usage(`no .html pages under ${opts.htmlDir}`);
  let problems = 0;
  for (const page of opts.screenshots) {
    if (opts.searchOnly) break;
    if (!pages.includes(page)) {
      console.log(`FAIL  screenshot of ${page}: no such page`);
      problems++;
    }
  }
  if (opts.screenshots.length && !opts.searchOnly) mkdirSync(opts.out, { recursive: true });

  // A fresh, empty profile each run; without the background-networking flags Chromium tries
  // Google's services, and on a closed network those connections are refused.
  const profile = mkdtempSync(join(tmpdir(), 'check-book-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 800 },
  });
  context.setDefaultTimeout(15000);
  const reports = [];
  try {
    // TABS pages at a time (each waits for the network to be idle for 500 ms), reported in order.
    reports.length = pages.length;
    let next = 0;
    const worker = async () => {
      while (next < pages.length) {
        const i = next++;
        const page = pages[i];
        const shoot = opts.screenshots.includes(page)
          ? join(opts.out, `${page.replace(/\/index\.html$/, '').replace(/\.html$/, '').replaceAll('/', '-')}.png`)
          : null;
        reports[i] = await checkPage(context, opts, page, shoot);
      }
    };
    await Promise.all(Array.from({ length: TABS }, worker));
    if (opts.search) reports.push(await checkSearch(context, opts));
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  for (const report of reports) {
    for (const line of report.lines) console.log(line);
    problems += report.problems;
  }
  for (const { shot } of reports) {
    if (!shot) continue;
    const rel = relative(process.cwd(), shot);
    console.log(`screenshot: ${rel.startsWith('..') ? shot : rel.split(sep).join('/')}`);
  }
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  const what = `${pages.length} pages${opts.search ? `, search "${opts.search.term}"` : ''}`;
  if (problems > 0) {
    console.log(`check_book: FAILED: ${problems} problem(s) (${what}, ${seconds} s)`);
    process.exit(1);
  }
  console.log(`check_book: all ok (${what}, ${seconds} s)`);
}

main().catch((err) => {
  console.error(`check_book: ${err.stack ?? err}`);
  process.exit(1);
});
