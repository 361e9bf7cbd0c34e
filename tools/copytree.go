package tools

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
)

// copyEntry copies one entry of a walk into root: a folder (made
// writable by its owner, so what it holds can be copied in), a regular
// file with its permission bits, a symbolic link as the same link. Other
// kinds are left out.
func copyEntry(root *os.Root, fsys fs.FS, name string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	switch {
	case d.IsDir():
		return root.Mkdir(name, info.Mode().Perm()|0o700)
	case d.Type()&fs.ModeSymlink != 0:
		target, err := fs.ReadLink(fsys, name)
		if err != nil {
			return err
		}
		return root.Symlink(target, name)
	case !d.Type().IsRegular():
		return nil
	}
	src, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	// Copied up to the size the walk counted: a file growing meanwhile
	// cannot take the copy past its limit.
	_, err = io.Copy(dst, io.LimitReader(src, info.Size()))
	return errors.Join(err, dst.Close())
}

// CopyLimits bound a copy glassbox makes of a folder for a run (each run's
// copy in compare mode, a session's kept workspace): a workspace is for a
// lesson's files, and a folder past these is refused, not half copied.
func CopyLimits() WalkLimits { return WalkLimits{Entries: 20_000, Bytes: 512 << 20} }

// CopyFolder copies the folder src into dst (which must exist) within
// CopyLimits: folders, regular files and links as links, following none.
func CopyFolder(ctx context.Context, dst, src string) error {
	return CopyTree(ctx, dst, os.DirFS(src), CopyLimits())
}
