package har_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestDevToolsImportsHAR loads what glassbox writes into Chromium's own
// DevTools — the HAR importer its Network panel uses when a file is
// dropped on it (front_end/models/har: HARFormat.HARRoot, then
// Importer.requestsFromHARLog) — in headless Chromium, over the DevTools
// protocol, and checks every request it makes of the file: URL, method,
// status, request body, response body, and the timings (start, headers,
// end) against the exchanges written. Chromium is Debian's package
// (apt-get install chromium; .ci/run installs it).
func TestDevToolsImportsHAR(t *testing.T) {
	xs := captured(t)
	data := write(t, xs)
	got := devtoolsImport(t, string(data))
	if len(got) != len(xs) {
		t.Fatalf("DevTools made %d requests of %d entries", len(got), len(xs))
	}
	start := time.Date(2026, 11, 28, 9, 0, 0, 123e6, time.UTC) // write's first startedDateTime
	for i, r := range got {
		x := xs[i]
		wantStart := float64(start.Add(time.Duration(i)*time.Second).UnixMicro()) / 1e6
		if r.URL != x.URL || r.Method != x.Method || r.Status != x.Status || !r.Finished {
			t.Errorf("request %d: %+v, want %s %s → %d", i+1, r, x.Method, x.URL, x.Status)
		}
		if r.Form != len(x.RequestBody) || r.Content != len(x.ResponseBody) {
			t.Errorf("request %d: body %d / response %d bytes, want %d / %d", i+1, r.Form, r.Content, len(x.RequestBody), len(x.ResponseBody))
		}
		near := func(a, b float64) bool { return math.Abs(a-b) < 2e-6 }
		if !near(r.Start, wantStart) || !near(r.Resp-r.Start, x.TTFB.Seconds()) || !near(r.End-r.Start, x.Total.Seconds()) {
			t.Errorf("request %d: start %.6f headers +%.6f end +%.6f, want %.6f +%.6f +%.6f", i+1, r.Start, r.Resp-r.Start, r.End-r.Start, wantStart, x.TTFB.Seconds(), x.Total.Seconds())
		}
	}
}

// imported is what DevTools made of one entry.
type imported struct {
	URL      string  `json:"url"`
	Method   string  `json:"method"`
	Status   int     `json:"status"`
	Start    float64 `json:"start"`
	Resp     float64 `json:"resp"`
	End      float64 `json:"end"`
	Form     int     `json:"form"`
	Content  int     `json:"content"`
	Finished bool    `json:"finished"`
}

// importScript is what the Network panel does with a HAR file dropped on
// it, with what each request it made holds.
const importScript = `(async (text) => {
  const HAR = await import('./models/har/har.js');
  const root = new HAR.HARFormat.HARRoot(JSON.parse(text));
  const out = [];
  for (const q of HAR.Importer.Importer.requestsFromHARLog(root.log)) {
    const form = await q.requestFormData();
    const content = await q.requestContentData();
    out.push({url: q.url(), method: q.requestMethod, status: q.statusCode, start: q.startTime,
      resp: q.responseReceivedTime, end: q.endTime, finished: q.finished,
      form: form ? form.length : 0, content: content && content.text ? content.text.length : 0});
  }
  return JSON.stringify(out);
})`

func devtoolsImport(t *testing.T, har string) []imported {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := startChromium(t, ctx)
	target := c.call(t, "", "Target.createTarget", map[string]any{"url": "devtools://devtools/bundled/devtools_app.html"})
	attached := c.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target["targetId"], "flatten": true})
	session, _ := attached["sessionId"].(string)
	for {
		r := c.call(t, session, "Runtime.evaluate", map[string]any{"expression": "document.readyState", "returnByValue": true})
		if v, _ := r["result"].(map[string]any); v["value"] == "complete" {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("DevTools did not load")
		}
		time.Sleep(50 * time.Millisecond)
	}
	arg, _ := json.Marshal(har)
	r := c.call(t, session, "Runtime.evaluate", map[string]any{"expression": importScript + "(" + string(arg) + ")", "awaitPromise": true, "returnByValue": true})
	if ex, ok := r["exceptionDetails"]; ok {
		t.Fatalf("DevTools could not import the HAR file: %v", ex)
	}
	v, _ := r["result"].(map[string]any)
	text, _ := v["value"].(string)
	var out []imported
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("DevTools answered %q: %v", text, err)
	}
	return out
}

// cdp is a DevTools protocol connection to a browser.
type cdp struct {
	ws *websocket.Conn
	id int
}

// startChromium starts headless Chromium with the flags this machine
// needs (no network besides loopback) and connects to it.
func startChromium(t *testing.T, ctx context.Context) *cdp {
	t.Helper()
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Fatal("this test needs Chromium: apt-get install chromium (.ci/run installs it)")
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-port=0", "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers too, to stop them all
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// Chromium and every helper it started, before its profile folder
		// (a TempDir) is removed: they write there until they end.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		for i := 0; i < 50 && groupAlive(cmd.Process.Pid); i++ {
			time.Sleep(20 * time.Millisecond)
		}
	})
	listening := regexp.MustCompile(`DevTools listening on (ws://\S+)`)
	sc := bufio.NewScanner(stderr)
	url := ""
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("Chromium did not say where its DevTools protocol listens")
	}
	go func() { // keep reading, so Chromium never blocks on a full pipe
		for sc.Scan() {
		}
	}()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if dl, ok := ctx.Deadline(); ok {
		ws.SetReadDeadline(dl)
	}
	return &cdp{ws: ws}
}

// groupAlive says a process of group pgid is still running.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// call sends one command (to a page's session when session is set) and
// returns its result, skipping the events that arrive meanwhile.
func (c *cdp) call(t *testing.T, session, method string, params map[string]any) map[string]any {
	t.Helper()
	c.id++
	msg := map[string]any{"id": c.id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	if err := c.ws.WriteJSON(msg); err != nil {
		t.Fatal(err)
	}
	for {
		var reply struct {
			ID     int             `json:"id"`
			Result map[string]any  `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := c.ws.ReadJSON(&reply); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if reply.ID != c.id {
			continue
		}
		if len(reply.Error) > 0 {
			t.Fatalf("%s: %s", method, reply.Error)
		}
		return reply.Result
	}
}
