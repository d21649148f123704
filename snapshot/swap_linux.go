package snapshot

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// swap puts the complete tree tmp in place of the workspace dir with one
// rename, so a reader sees the old workspace or the new one, never a mix.
// It returns where the old content went ("" if there was none), for the
// caller to remove.
func swap(tmp, dir string, state workspaceState) (string, error) {
	if state == stateMissing {
		if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dir, unix.RENAME_NOREPLACE); err != nil {
			return "", fmt.Errorf("move the restored tree into place at %s: %w", dir, err)
		}
		return "", nil
	}
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return swapByRenames(tmp, dir)
	}
	if err != nil {
		return "", fmt.Errorf("swap the restored tree with %s: %w; if the workspace is a mount point, restore into a directory inside it", dir, err)
	}
	return tmp, nil
}

// swapByRenames is for file systems without RENAME_EXCHANGE: the
// workspace is missing for the instant between the two renames.
func swapByRenames(tmp, dir string) (string, error) {
	old := tmp + ".old"
	if err := unix.Rename(dir, old); err != nil {
		return "", fmt.Errorf("move the old workspace %s aside: %w", dir, err)
	}
	if err := unix.Rename(tmp, dir); err != nil {
		if rerr := unix.Rename(old, dir); rerr != nil {
			return "", fmt.Errorf("move the restored tree into place: %w; the old workspace is at %s: move it back to %s", err, old, dir)
		}
		return "", fmt.Errorf("move the restored tree into place: %w", err)
	}
	return old, nil
}
