package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
)

// `glassbox run --otlp URL` says where the spans go and, at the end, how
// many were sent and how many dropped and why: here nothing listens, so
// every span of the lesson is dropped as refused — and the run is not the
// worse for it (exit 0, the answer delivered).
func TestRunOTLPSummary(t *testing.T) {
	isolate(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	var out, errb bytes.Buffer
	code := realMain(context.Background(), []string{"run", "--offline", "--otlp", url, "--lesson", "tour"}, strings.NewReader(""), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	stderr := errb.String()
	if !strings.Contains(stderr, "glassbox run: OpenTelemetry: spans go to "+url+"/v1/traces (--otlp)\n") {
		t.Errorf("stderr does not say where the spans go:\n%s", stderr)
	}
	summary := regexp.MustCompile(`glassbox run: OpenTelemetry: 0 spans sent to \S+/v1/traces; (\d+) dropped: the collector refused the connection \((\d+)\)\n`).FindStringSubmatch(stderr)
	if summary == nil || summary[1] != summary[2] || summary[1] == "0" {
		t.Errorf("stderr has no summary of the refused spans:\n%s", stderr)
	}
}

// The variable turns export on too, and says so; a URL that is not one is
// refused before anything runs.
func TestRunOTLPFromVariableAndBadURL(t *testing.T) {
	isolate(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	var out, errb bytes.Buffer
	if code := realMain(context.Background(), []string{"run", "--offline", "--lang", "ja", "--lesson", "tour"}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "OpenTelemetry: スパンの送り先は http://127.0.0.1:1/v1/traces(OTEL_EXPORTER_OTLP_ENDPOINT)") ||
		!strings.Contains(errb.String(), "件は送れませんでした: コレクターが接続を拒否しました") {
		t.Errorf("stderr:\n%s", errb.String())
	}
	os.Unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	out.Reset()
	errb.Reset()
	if code := realMain(context.Background(), []string{"run", "--offline", "--otlp", "localhost:4318", "hi"}, strings.NewReader(""), &out, &errb); code != exitUsage ||
		!strings.Contains(errb.String(), "want an http:// or https:// URL") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
