// Two HAR files of the same page, made by two tools running Debian's
// Chromium: DevTools' own "Save all as HAR" (its Network log, exported by
// front_end/models/har's Writer.write) and Playwright's recordHar.
const { chromium } = require('playwright-core');
const fs = require('fs');
const args = ['--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync','--remote-debugging-port=9333','--remote-allow-origins=*'];
(async () => {
  const port = fs.readFileSync(__dirname + '/port', 'utf8');
  const site = 'http://127.0.0.1:' + port + '/';
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args });
  // Playwright's HAR.
  const ctx = await browser.newContext({ recordHar: { path: __dirname + '/playwright.har', content: 'embed' } });
  const p = await ctx.newPage();
  await p.goto(site); await p.waitForFunction(() => document.title.startsWith('done'));
  await ctx.close();
  // DevTools' HAR: a DevTools front end attached to a page, the page loaded, the log exported.
  const ctx2 = await browser.newContext();
  const app = await ctx2.newPage();
  await app.goto('about:blank');
  const targets = await (await fetch('http://127.0.0.1:9333/json/list')).json();
  const t = targets.find(x => x.url === 'about:blank' && x.type === 'page');
  const dt = await (await browser.newContext()).newPage();
  await dt.goto('devtools://devtools/bundled/devtools_app.html?ws=127.0.0.1:9333/devtools/page/' + t.id);
  await dt.waitForFunction(async () => { try { const L = await import('./models/logs/logs.js'); return !!L.NetworkLog.NetworkLog.instance(); } catch (e) { return false; } });
  await new Promise(r => setTimeout(r, 1500)); // the front end turns on the Network domain
  await app.goto(site); await app.waitForFunction(() => document.title.startsWith('done'));
  await new Promise(r => setTimeout(r, 1000));
  const har = await dt.evaluate(async () => {
    const L = await import('./models/logs/logs.js');
    const H = await import('./models/har/har.js');
    const C = await import('./core/common/common.js');
    const reqs = L.NetworkLog.NetworkLog.instance().requests().filter(r => r.url().includes('/v1beta/'));
    const out = new C.StringOutputStream.StringOutputStream();
    const progress = {setTitle(){}, setTotalWork(){}, incrementWorked(){}, setWorked(){}, done(){}, isCanceled(){ return false; }, canceled: false};
    await H.Writer.Writer.write(out, reqs, {sanitize: false}, progress);
    return out.data();
  });
  fs.writeFileSync(__dirname + '/devtools.har', har);
  await browser.close();
})().catch(e => { console.error('ERR', e); process.exit(1); });
