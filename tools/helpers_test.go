package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// newTestWorkspace makes a workspace in a fresh temporary folder holding
// files (relative path → content) and returns it.
func newTestWorkspace(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		writeTestFile(t, filepath.Join(dir, name), content)
	}
	ws, err := NewWorkspace(dir)
	if err != nil {
		t.Fatalf("NewWorkspace(%s): %v", dir, err)
	}
	return ws
}

// writeTestFile writes content to path, creating parent folders.
func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// outsideDir makes a folder next to the workspace (so outside it), holding
// secret.txt, and returns its resolved path.
func outsideDir(t *testing.T, ws *Workspace) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(ws.Root()), "outside")
	writeTestFile(t, filepath.Join(dir, "secret.txt"), "top secret\n")
	return dir
}

// symlink creates a symbolic link at link pointing to target.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatalf("cannot create a symbolic link: %v", err)
	}
}

// run calls tool with args and fails the test on an infrastructure error.
func run(t *testing.T, tool Tool, args string) Result {
	t.Helper()
	res, err := tool.Run(context.Background(), []byte(args))
	if err != nil {
		t.Fatalf("%s.Run(%s): unexpected error: %v", tool.Spec().Name, args, err)
	}
	return res
}

// readTestFile returns a file's content or fails the test.
func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// quote makes s a JSON string literal.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b)
}
