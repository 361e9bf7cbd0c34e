package tools

import (
	"os"
	"path/filepath"
	"strings"
)

// DotEnvFiles are the regular files at the top of the folder root named
// .env or .env.SOMETHING (.env.local, .env.production): the files glassbox
// reads secrets from in a workspace, which its commands must then find
// empty (ExecuteCommand.Conceal). The folder is read a batch at a time
// and only those names are kept, so a top folder of a million entries
// costs time, never memory.
func DotEnvFiles(root string) []string {
	dir, err := os.Open(root)
	if err != nil {
		return nil
	}
	defer dir.Close()
	var out []string
	for {
		batch, err := dir.ReadDir(walkBatch)
		for _, e := range batch {
			if name := e.Name(); e.Type().IsRegular() && (name == ".env" || strings.HasPrefix(name, ".env.")) {
				out = append(out, filepath.Join(root, name))
			}
		}
		if err != nil || len(batch) == 0 {
			return out // io.EOF, or a folder that cannot be read further
		}
	}
}
