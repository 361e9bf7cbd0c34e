package har_test

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"time"
)

// validate checks data against HAR 1.2's structure
// (http://www.softwareishard.com/blog/har-12-spec/): each required object
// and field, with its JSON type. It returns what is wrong.
func validate(data []byte) []string {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return []string{err.Error()}
	}
	v := &validator{}
	log := v.object(doc, "log", "")
	if log == nil {
		return v.errs
	}
	v.str(log, "version", "log")
	if creator := v.object(log, "creator", "log"); creator != nil {
		v.str(creator, "name", "log.creator")
		v.str(creator, "version", "log.creator")
	}
	entries, _ := log["entries"].([]any)
	if entries == nil {
		v.fail("log.entries is not a list")
	}
	for i, e := range entries {
		v.entry(e, fmt.Sprintf("log.entries[%d]", i))
	}
	return v.errs
}

type validator struct{ errs []string }

func (v *validator) fail(format string, args ...any) {
	v.errs = append(v.errs, fmt.Sprintf(format, args...))
}

func (v *validator) object(m map[string]any, key, at string) map[string]any {
	o, ok := m[key].(map[string]any)
	if !ok {
		v.fail("%s.%s is not an object", at, key)
	}
	return o
}

func (v *validator) str(m map[string]any, key, at string) {
	if _, ok := m[key].(string); !ok {
		v.fail("%s.%s is not a string", at, key)
	}
}

func (v *validator) num(m map[string]any, key, at string) float64 {
	n, ok := m[key].(float64)
	if !ok {
		v.fail("%s.%s is not a number", at, key)
	}
	return n
}

func (v *validator) list(m map[string]any, key, at string, item func(map[string]any, string)) {
	l, ok := m[key].([]any)
	if !ok {
		v.fail("%s.%s is not a list", at, key)
		return
	}
	for i, x := range l {
		o, ok := x.(map[string]any)
		if !ok {
			v.fail("%s.%s[%d] is not an object", at, key, i)
			continue
		}
		if item != nil {
			item(o, fmt.Sprintf("%s.%s[%d]", at, key, i))
		}
	}
}

func (v *validator) nameValue(o map[string]any, at string) {
	v.str(o, "name", at)
	v.str(o, "value", at)
}

func (v *validator) entry(x any, at string) {
	e, ok := x.(map[string]any)
	if !ok {
		v.fail("%s is not an object", at)
		return
	}
	if s, ok := e["startedDateTime"].(string); !ok {
		v.fail("%s.startedDateTime is not a string", at)
	} else if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		v.fail("%s.startedDateTime %q is not ISO 8601", at, s)
	}
	total := v.num(e, "time", at)
	if req := v.object(e, "request", at); req != nil {
		v.request(req, at+".request")
	}
	if resp := v.object(e, "response", at); resp != nil {
		v.response(resp, at+".response")
	}
	v.object(e, "cache", at)
	if t := v.object(e, "timings", at); t != nil {
		sum := 0.0
		for _, k := range []string{"send", "wait", "receive"} {
			if n := v.num(t, k, at+".timings"); n < 0 {
				v.fail("%s.timings.%s is %v: send, wait and receive may not be negative", at, k, n)
			} else {
				sum += n
			}
		}
		for _, k := range []string{"blocked", "dns", "connect", "ssl"} {
			if n, ok := t[k]; ok {
				if f, isNum := n.(float64); !isNum || f < -1 {
					v.fail("%s.timings.%s is %v: a number, -1 when it does not apply", at, k, n)
				} else if f > 0 {
					sum += f
				}
			}
		}
		if math.Abs(sum-total) > 0.002 {
			v.fail("%s.time is %v, the timings add up to %v", at, total, sum)
		}
	}
}

func (v *validator) request(r map[string]any, at string) {
	v.str(r, "method", at)
	v.str(r, "url", at)
	v.str(r, "httpVersion", at)
	v.list(r, "cookies", at, v.nameValue)
	v.list(r, "headers", at, v.nameValue)
	v.list(r, "queryString", at, v.nameValue)
	v.num(r, "headersSize", at)
	v.num(r, "bodySize", at)
	if pd, ok := r["postData"]; ok {
		p, ok := pd.(map[string]any)
		if !ok {
			v.fail("%s.postData is not an object", at)
			return
		}
		v.str(p, "mimeType", at+".postData")
		_, hasText := p["text"].(string)
		_, hasParams := p["params"].([]any)
		if !hasText && !hasParams {
			v.fail("%s.postData has neither text nor params", at)
		}
	}
}

func (v *validator) response(r map[string]any, at string) {
	v.num(r, "status", at)
	v.str(r, "statusText", at)
	v.str(r, "httpVersion", at)
	v.list(r, "cookies", at, v.nameValue)
	v.list(r, "headers", at, v.nameValue)
	if c := v.object(r, "content", at); c != nil {
		v.num(c, "size", at+".content")
		v.str(c, "mimeType", at+".content")
		if t, ok := c["text"]; ok {
			if _, isStr := t.(string); !isStr {
				v.fail("%s.content.text is not a string", at)
			}
		}
	}
	v.str(r, "redirectURL", at)
	v.num(r, "headersSize", at)
	v.num(r, "bodySize", at)
}

// heapInUse is the heap the program holds now, after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
