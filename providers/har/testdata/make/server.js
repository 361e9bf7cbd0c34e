// A page that calls a Gemini-shaped endpoint on this same loopback server:
// the server streams the SSE events of a recorded reply, 40 ms apart.
const http = require('http'), fs = require('fs');
const events = fs.readFileSync(__dirname + '/site/stream.sse', 'utf8').split('\n\n').filter(s => s.trim());
const request = fs.readFileSync(__dirname + '/site/request.json', 'utf8');
const page = `<!doctype html><title>har sample</title><script>
(async () => {
  const r = await fetch('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', {method: 'POST',
    headers: {'content-type': 'application/json', 'x-goog-api-key': 'AIzaSy-PLACEHOLDER-not-a-real-key-000'}, body: ${JSON.stringify(request)}});
  const text = await r.text();
  const e = await fetch('/v1beta/models/gemini-2.5-flash:generateContent', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"contents":[]}'});
  await e.text();
  document.title = 'done ' + text.length;
})();
</script>`;
const server = http.createServer((req, res) => {
  if (req.url === '/') { res.writeHead(200, {'content-type': 'text/html'}); return res.end(page); }
  let body = ''; req.on('data', d => body += d); req.on('end', async () => {
    if (req.url.includes('streamGenerateContent')) {
      res.writeHead(200, {'content-type': 'text/event-stream'});
      for (const ev of events) { res.write(ev + '\r\n\r\n'); await new Promise(r => setTimeout(r, 40)); }
      return res.end();
    }
    res.writeHead(400, {'content-type': 'application/json; charset=UTF-8'});
    res.end(JSON.stringify({error: {code: 400, message: '* GenerateContentRequest.contents: contents is not specified', status: 'INVALID_ARGUMENT'}}));
  });
});
server.listen(0, '127.0.0.1', () => { fs.writeFileSync(__dirname + '/port', String(server.address().port)); });
