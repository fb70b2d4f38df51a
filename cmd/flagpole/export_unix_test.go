//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// export --force replaces a regular file only: renamed over a symbolic
// link, a pipe or a device it would put a file in their place.
func TestExportReplacesOnlyARegularFile(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", goodFile))
	dir := t.TempDir()
	target := filepath.Join(dir, "target.jsonl")
	if err := os.WriteFile(target, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, why := range map[string]string{link: "symbolic link", fifo: "not a regular file"} {
		msg := mustFail(t, noEnv, nil, "export", "--db", db, "--force", path)
		if !strings.Contains(msg, why) {
			t.Errorf("export --force %s: error %q, want it to say %q", path, msg, why)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Errorf("the link's target changed: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("refused exports left files behind: %v", entries)
	}
}
