//go:build !unix

package tools

import "os"

// lockFolder takes no lock here: folders left by a dead run are not
// recognised on this system.
func lockFolder(dir string) (*os.File, error) { return nil, nil }

// RemoveStaleCommandFolders does nothing here (no folder locks).
func RemoveStaleCommandFolders() int { return 0 }
