package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// execMain runs the test binary as the flagpole command (see TestMain) in
// an empty directory, and returns its stdout, stderr and exit code.
func execMain(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FLAGPOLE_TEST_EXEC_MAIN=1")
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("flagpole %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), 0
}

func TestHelpExitsZeroEverywhere(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-h"}, {"--help"}, {"help"}, {"help", "keys", "create"},
		{"serve", "-h"}, {"serve", "--help"}, {"migrate", "-h"}, {"seed", "-h"}, {"import", "-h"}, {"export", "-h"},
		{"snapshot", "-h"}, {"keys", "-h"}, {"keys", "--help"}, {"keys", "create", "-h"}, {"keys", "list", "--help"},
		{"keys", "revoke", "-h"},
	} {
		stdout, stderr, code := execMain(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "usage: ") || stderr != "" {
			t.Errorf("flagpole %s: exit %d, stdout %.60q, stderr %q; want exit 0 and the usage on stdout",
				strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// Each command's -h names its own flags.
	for args, want := range map[string]string{"export -h": "--force", "keys create -h": "--name", "snapshot -h": "--day",
		"serve -h": "--shutdown-timeout", "seed -h": "--flags"} {
		if stdout, _, _ := execMain(t, strings.Fields(args)...); !strings.Contains(stdout, want) {
			t.Errorf("flagpole %s does not show %s:\n%s", args, want, stdout)
		}
	}
}

func TestStrayArgumentsRefused(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "migrate", "--db", db)
	for _, args := range [][]string{
		{"serve", "--db", db, "--addr", "127.0.0.1:0", "extra"},
		{"serve", "--db", db, "--addr", "127.0.0.1:0", "--access-log", "false"},
		{"migrate", "--db", db, "extra"}, {"seed", "--db", db, "extra"}, {"snapshot", "--db", db, "extra"},
		{"import", "--db", db, "a.jsonl", "b.jsonl"}, {"import", "--db", db},
		{"export", "--db", db, "a.jsonl", "b.jsonl"}, {"export", "a.jsonl", "--db", db},
		{"keys", "create", "--db", db, "--name", "x", "extra"}, {"keys", "list", "--db", db, "extra"},
		{"keys", "revoke", "--db", db, "key_a", "key_b"}, {"help", "serve", "extra"},
	} {
		// serve would run until the context ends: a refusal is at once.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var out, errOut bytes.Buffer
		err := run(ctx, args, strings.NewReader(""), &out, &errOut, noEnv)
		cancel()
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("flagpole %s: error %v, want one line refusing the argument", strings.Join(args, " "), err)
		}
	}
	msg := mustFail(t, noEnv, nil, "serve", "--db", db, "--addr", "127.0.0.1:0", "--access-log", "false")
	if !strings.Contains(msg, "--access-log=false") {
		t.Errorf("serve --access-log false: error %q, want it to say --access-log=false", msg)
	}
	msg = mustFail(t, noEnv, nil, "export", "out.jsonl", "--db", db)
	if !strings.Contains(msg, "put the flags first") {
		t.Errorf("export FILE --db: error %q, want it to say the flags go first", msg)
	}
}

func TestMissingSQLiteFileRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "typo.db")
	db := "sqlite:" + missing
	for _, args := range [][]string{
		{"keys", "list", "--db", db}, {"keys", "create", "--db", db, "--name", "x"}, {"keys", "revoke", "--db", db, "key_abc"},
		{"export", "--db", db}, {"snapshot", "--db", db}, {"serve", "--db", db, "--addr", "127.0.0.1:0"},
		{"serve", "--db", loadertest.URL(t, loader.SQLite), "--db-replica", db, "--addr", "127.0.0.1:0"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var out, errOut bytes.Buffer
		err := run(ctx, args, strings.NewReader(""), &out, &errOut, noEnv)
		cancel()
		if err == nil || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), "\n") {
			t.Errorf("flagpole %s: error %v, want one line naming %s", strings.Join(args, " "), err, missing)
		}
		if out.Len() > 0 {
			t.Errorf("flagpole %s: stdout %q, want nothing", strings.Join(args, " "), out.String())
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Fatalf("flagpole %s left %v in the directory", strings.Join(args, " "), entries)
		}
	}
	// The commands that make a database make it.
	for i, args := range [][]string{
		{"migrate"}, {"seed", "--flags", "8", "--users", "3", "--days", "2"}, {"import", writeFile(t, "good.jsonl", goodFile)},
	} {
		path := filepath.Join(dir, "new"+string(rune('a'+i))+".db")
		mustRun(t, append([]string{args[0], "--db", "sqlite:" + path}, args[1:]...)...)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("flagpole %s did not create the database: %v", args[0], err)
		}
	}
}

func TestKeysRevokeNeverEchoesASecret(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	secret, _ := createKey(t, db, "--name", "x")
	for _, arg := range []string{secret, strings.TrimPrefix(secret, "grf_"), "Bearer " + secret} {
		r := runCLI(t, noEnv, nil, "keys", "revoke", "--db", db, arg)
		if r.err == nil {
			t.Errorf("keys revoke with a secret: got nil error")
			continue
		}
		if s := strings.TrimPrefix(secret, "grf_"); strings.Contains(r.err.Error(), s[:8]) || strings.Contains(r.stderr+r.stdout, s[:8]) {
			t.Errorf("keys revoke with a secret echoes it: %v", r.err)
		}
	}
	if rows, _ := listKeys(t, db); len(rows) != 1 {
		t.Fatalf("got %d keys", len(rows))
	} else {
		for _, row := range rows {
			if row.revoked != "-" {
				t.Errorf("the key was revoked by its secret")
			}
		}
	}
}

func TestKeysDuplicateNameWarned(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	_, first := createKey(t, db, "--name", "acme")
	r := runCLI(t, noEnv, nil, "keys", "create", "--db", db, "--name", "acme")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, first) {
		t.Errorf("a second key named acme: stderr %q, want a warning naming %s", r.stderr, first)
	}
	second := createdID.FindStringSubmatch(r.stderr)[1]
	mustRun(t, "keys", "revoke", "--db", db, first)
	mustRun(t, "keys", "revoke", "--db", db, second)
	r = runCLI(t, noEnv, nil, "keys", "create", "--db", db, "--name", "acme")
	if r.err != nil || strings.Contains(r.stderr, "warning") {
		t.Errorf("a key named as revoked ones only: %v, stderr %q, want no warning", r.err, r.stderr)
	}
	r = runCLI(t, noEnv, nil, "keys", "create", "--db", db, "--name", "other")
	if r.err != nil || strings.Contains(r.stderr, "warning") {
		t.Errorf("a key of a new name: %v, stderr %q, want no warning", r.err, r.stderr)
	}
}

func TestExportRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", goodFile))
	path := writeFile(t, "precious.txt", "keep me\n")
	msg := mustFail(t, noEnv, nil, "export", "--db", db, path)
	if !strings.Contains(msg, "--force") || !strings.Contains(msg, path) {
		t.Errorf("export over a file: error %q, want it to name the file and --force", msg)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me\n" {
		t.Errorf("export without --force changed the file: %q", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("export without --force left files behind: %v", entries)
	}
	mustRun(t, "export", "--db", db, "--force", path)
	if b, _ := os.ReadFile(path); len(lines(string(b))) != 3 {
		t.Errorf("export --force: the file holds %q, want 3 flags", b)
	}
	mustFail(t, noEnv, nil, "export", "--db", db, "--force", t.TempDir())
	fresh := filepath.Join(t.TempDir(), "new.jsonl")
	mustRun(t, "export", "--db", db, fresh)
	if b, _ := os.ReadFile(fresh); len(lines(string(b))) != 3 {
		t.Errorf("export to a new file: it holds %q, want 3 flags", b)
	}
}

func TestMigrateSaysWhatItDid(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			r := runCLI(t, noEnv, nil, "migrate", "--db", db)
			if r.err != nil || !strings.Contains(r.stderr, "created the schema") {
				t.Errorf("first migrate: %v, stderr %q, want it to say it created the schema", r.err, r.stderr)
			}
			r = runCLI(t, noEnv, nil, "migrate", "--db", db)
			if r.err != nil || !strings.Contains(r.stderr, "up to date") || strings.Contains(r.stderr, "created") {
				t.Errorf("second migrate: %v, stderr %q, want it to say the schema is up to date", r.err, r.stderr)
			}
		})
	}
}

func TestSnapshotOnlyToday(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "import", "--db", db, writeFile(t, "good.jsonl", goodFile))
	now := time.Now().UTC()
	for _, day := range []string{now.AddDate(0, 0, -1).Format(time.DateOnly), "2026-01-03",
		now.AddDate(0, 0, 1).Format(time.DateOnly), "2030-01-01"} {
		msg := mustFail(t, noEnv, nil, "snapshot", "--db", db, "--day", day)
		if !strings.Contains(msg, "past") && !strings.Contains(msg, "future") {
			t.Errorf("snapshot --day %s: error %q, want it to say the day is past or future", day, msg)
		}
	}
	if got := countSnapshots(t, db); got != 3 {
		t.Errorf("after refused snapshots: %d rows, want the 3 imported", got)
	}
}

func TestSnapshotDay(t *testing.T) {
	now := time.Date(2026, 11, 23, 23, 59, 59, 0, time.FixedZone("east", 5*3600)) // 18:59:59 UTC
	for text, ok := range map[string]bool{"": true, "2026-11-23": true, "2026-11-22": false, "2026-11-24": false,
		"2026-01-03": false, "2030-01-01": false, "2026-11-23x": false} {
		day, err := snapshotDay(text, now)
		if (err == nil) != ok {
			t.Errorf("snapshotDay(%q): error %v, want ok %v", text, err, ok)
		}
		if ok && !day.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("snapshotDay(%q) = %s, want 2026-11-23 UTC", text, day)
		}
	}
}

// tty is a buffer that says it is a terminal.
type tty struct{ syncBuffer }

func (*tty) Terminal() bool { return true }

func TestProgressShowsTotals(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	ctx := context.Background()
	var stderr tty
	var stdout bytes.Buffer
	if err := run(ctx, []string{"seed", "--db", db, "--flags", "1500", "--users", "5", "--days", "1"}, nil, &stdout, &stderr, noEnv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "seed: 1500/1500 flags (100%)") {
		t.Errorf("seed on a terminal: stderr %q, want a total and a percentage", stderr.String())
	}
	file := writeFile(t, "good.jsonl", goodFile)
	stderr = tty{}
	if err := run(ctx, []string{"import", "--db", db, file}, nil, &stdout, &stderr, noEnv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "import: 3 lines") || !strings.Contains(stderr.String(), "(100%)") {
		t.Errorf("import on a terminal: stderr %q, want the lines and a percentage of the file", stderr.String())
	}
	stderr = tty{}
	if err := run(ctx, []string{"export", "--db", db, filepath.Join(t.TempDir(), "out.jsonl")}, nil, &stdout, &stderr, noEnv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "export: 1503/1503 flags (100%)") {
		t.Errorf("export on a terminal: stderr %q, want a total and a percentage", stderr.String())
	}
	// Not on a terminal: no progress at all.
	var plain bytes.Buffer
	if err := run(ctx, []string{"export", "--db", db, filepath.Join(t.TempDir(), "out.jsonl")}, nil, &stdout, &plain, noEnv); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "%") {
		t.Errorf("export to a pipe: stderr %q, want no progress", plain.String())
	}
}

func TestLogFormatAuto(t *testing.T) {
	var term tty
	for _, tc := range []struct {
		format string
		w      interface{ Write([]byte) (int, error) }
		want   string
	}{{"auto", &term, "text"}, {"auto", &bytes.Buffer{}, "json"}, {"json", &term, "json"}, {"text", &bytes.Buffer{}, "text"}} {
		if got := logFormat(tc.format, tc.w); got != tc.want {
			t.Errorf("logFormat(%s, %T) = %s, want %s", tc.format, tc.w, got, tc.want)
		}
	}
}

func TestServeLogsTextOnATerminal(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "migrate", "--db", db)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "msg=listening"},
		{[]string{"--log-format", "json"}, `"msg":"listening"`},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var stderr tty
		var stdout syncBuffer
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, tc.args...), nil, &stdout, &stderr, noEnv)
		}()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(stderr.String(), tc.want) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve %v: %v", tc.args, err)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("serve %v with a terminal on stderr: logs %q, want %s", tc.args, stderr.String(), tc.want)
		}
	}
}

func TestFlagErrorsSpellFlagsAsDocumented(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]string{
		"serve --bogus":              "unknown flag --bogus",
		"serve --rate-limit x":       `invalid value "x" for --rate-limit`,
		"serve --access-log=maybe":   "for --access-log",
		"migrate --db":               "--db needs a value",
		"keys create --limit x":      "for --limit",
		"serve --snapshot-daily=yes": "for --snapshot-daily",
	} {
		msg := mustFail(t, noEnv, nil, strings.Fields(args)...)
		if !strings.Contains(msg, want) || strings.Contains(msg, "---") {
			t.Errorf("flagpole %s: error %q, want %q", args, msg, want)
		}
	}
}

// TestServeWarnsOnOneCPU: with one thread for Go code a load's build holds
// it while requests wait (docs/deploy.md, Capacity), so serve says so when
// it starts, and not with two. Not parallel: it sets the process's
// GOMAXPROCS, which no parallel test runs under.
func TestServeWarnsOnOneCPU(t *testing.T) {
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "migrate", "--db", db)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		s := startServe(t, noEnv, "--db", db, "--addr", "127.0.0.1:0", "--log-format", "json")
		line := s.waitFor(t, "the listening line", 30*time.Second, func() []string {
			for l := range strings.Lines(s.stderr.String()) {
				if listening.MatchString(l) {
					return []string{l}
				}
			}
			return nil
		})[0]
		if err := s.stop(t); err != nil {
			t.Fatalf("serve: %v", err)
		}
		if !strings.Contains(line, fmt.Sprintf(`"gomaxprocs":%d`, procs)) {
			t.Errorf("GOMAXPROCS %d: the listening line does not give it: %s", procs, line)
		}
		logs := s.stderr.String()
		warned := strings.Contains(logs, `"level":"WARN","msg":"one CPU runs Go code`)
		if warned != (procs == 1) {
			t.Errorf("GOMAXPROCS %d: warned %v, want %v:\n%s", procs, warned, procs == 1, logs)
		}
	}
}

// serve warns at start when max_snapshot_age is no longer than the
// wait between flag loads (config.Cautions), and not otherwise.
func TestServeWarnsOfASnapshotAgeBelowTheLoads(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	mustRun(t, "migrate", "--db", db)
	for age, want := range map[string]bool{"3s": true, "2m": false} {
		s := startServe(t, noEnv, "--db", db, "--addr", "127.0.0.1:0", "--log-format", "json", "--max-snapshot-age", age)
		s.waitFor(t, "the listening line", 30*time.Second, func() []string {
			for l := range strings.Lines(s.stderr.String()) {
				if listening.MatchString(l) {
					return []string{l}
				}
			}
			return nil
		})
		if err := s.stop(t); err != nil {
			t.Fatalf("serve: %v", err)
		}
		logs := s.stderr.String()
		if warned := strings.Contains(logs, `"level":"WARN","msg":"max_snapshot_age `+age+` is not longer`); warned != want {
			t.Errorf("max_snapshot_age %s: warned %v, want %v:\n%s", age, warned, want, logs)
		}
	}
}
