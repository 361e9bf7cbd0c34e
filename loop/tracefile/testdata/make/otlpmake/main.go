// otlpmake is an OTLP/HTTP trace receiver that writes what it receives as
// the OpenTelemetry collector's file exporter does: each request one line
// of OTLP JSON, encoded by the collector's own pdata marshaler.
package main

import (
	"io"
	"log"
	"net/http"
	"os"
	"sync"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

func main() {
	out, err := os.OpenFile(os.Args[1], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	http.HandleFunc("/v1/traces", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := ptraceotlp.NewExportRequest()
		unmarshal := req.UnmarshalProto
		if r.Header.Get("Content-Type") == "application/json" {
			unmarshal = req.UnmarshalJSON
		}
		if err := unmarshal(body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var m ptrace.JSONMarshaler
		b, err := m.MarshalTraces(req.Traces())
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		mu.Lock()
		out.Write(append(b, '\n'))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		resp, _ := ptraceotlp.NewExportResponse().MarshalProto()
		w.Write(resp)
	})
	http.HandleFunc("/v1/logs", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := plogotlp.NewExportRequest()
		unmarshal := req.UnmarshalProto
		if r.Header.Get("Content-Type") == "application/json" {
			unmarshal = req.UnmarshalJSON
		}
		if err := unmarshal(body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var m plog.JSONMarshaler
		b, _ := m.MarshalLogs(req.Logs())
		mu.Lock()
		out.Write(append(b, '\n'))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		resp, _ := plogotlp.NewExportResponse().MarshalProto()
		w.Write(resp)
	})
	http.HandleFunc("/v1/metrics", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := pmetricotlp.NewExportRequest()
		unmarshal := req.UnmarshalProto
		if r.Header.Get("Content-Type") == "application/json" {
			unmarshal = req.UnmarshalJSON
		}
		if err := unmarshal(body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var m pmetric.JSONMarshaler
		b, _ := m.MarshalMetrics(req.Metrics())
		mu.Lock()
		out.Write(append(b, '\n'))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		resp, _ := pmetricotlp.NewExportResponse().MarshalProto()
		w.Write(resp)
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[2], nil))
}
