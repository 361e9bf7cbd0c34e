//go:build !unix

package tools

import (
	"io/fs"
	"os"
)

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, fs.FileInfo) {}

// linkCount reports one name per file where the system does not say.
func linkCount(fs.FileInfo) uint64 { return 1 }
