package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// loadDotEnv reads a .env file in the working directory, as the seed
// project did, and sets the variables the environment does not already set
// (the real environment wins). The SDKs read the environment themselves, so
// the values must be in the process environment, not only in a map.
func loadDotEnv(stderr io.Writer) {
	f, err := os.Open(".env")
	if err != nil {
		return
	}
	defer f.Close()
	vals, err := parseDotEnv(bufio.NewScanner(f))
	if err != nil {
		fmt.Fprintf(stderr, "glassbox: .env: %v (file ignored)\n", err)
		return
	}
	for k, v := range vals {
		if _, set := os.LookupEnv(k); !set {
			os.Setenv(k, v)
		}
	}
}

// parseDotEnv reads KEY=VALUE lines; blank lines and # comments are skipped,
// an optional "export " prefix and surrounding quotes are removed.
func parseDotEnv(sc *bufio.Scanner) (map[string]string, error) {
	vals := map[string]string{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("line %d is not KEY=VALUE", n)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		vals[k] = v
	}
	return vals, sc.Err()
}
