package main

import (
	"fmt"
	"net/http"
)

// writeGeminiReply answers a fake Gemini request with one reply (a
// GenerateContentResponse as JSON): as the unary body for generateContent,
// as one server-sent event for :streamGenerateContent?alt=sse, the call
// glassbox makes by default.
func writeGeminiReply(w http.ResponseWriter, r *http.Request, reply string) {
	if r.URL.Query().Get("alt") == "sse" {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, reply)
}
