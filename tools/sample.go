package tools

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// sampleFiles is the bundled sample project the offline lessons work on:
// hello.py, README.md, notes/todo.txt and old_log.txt. The lessons' scripts
// rely on these exact contents.
//
//go:embed all:sample
var sampleFiles embed.FS

// sampleDir is the folder inside sampleFiles that holds the project.
const sampleDir = "sample"

// CopySample writes the bundled sample project into dst, creating dst and
// its sub-folders as needed. Existing files with the same names are
// overwritten; other files in dst are left alone.
func CopySample(dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("copy sample project: %w", err)
	}
	err := fs.WalkDir(sampleFiles, sampleDir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(sampleDir, filepath.FromSlash(name))
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := sampleFiles.ReadFile(name)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("copy sample project to %s: %w", dst, err)
	}
	return nil
}

// NewSampleWorkspace copies the sample project into a fresh temporary folder
// and opens it as the workspace, so a lesson can never change the original.
// The caller may remove the folder (Root) when done.
func NewSampleWorkspace() (*Workspace, error) {
	dir, err := os.MkdirTemp("", "glassbox-workspace-*")
	if err != nil {
		return nil, fmt.Errorf("create a temporary workspace: %w", err)
	}
	if err := CopySample(dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	ws, err := NewWorkspace(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return ws, nil
}
