package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader/loadertest"
)

// mapEnv is an env that reads only m, never the machine's environment.
func mapEnv(m map[string]string) env {
	return func(k string) string { return m[k] }
}

// noEnv is an empty environment.
var noEnv = mapEnv(nil)

// result is what one run of the command line left behind.
type result struct {
	stdout, stderr string
	err            error
}

// runCLI runs the command line with args, stdin (nil: empty) and getenv,
// under a timeout, and returns its output and error.
func runCLI(t *testing.T, getenv env, stdin io.Reader, args ...string) result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, args, stdin, &stdout, &stderr, getenv)
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// mustRun runs the command line with no environment and fails the test
// when it returns an error; it returns standard output.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := runCLI(t, noEnv, nil, args...)
	if r.err != nil {
		t.Fatalf("flagpole %s: %v\nstderr:\n%s", strings.Join(args, " "), r.err, r.stderr)
	}
	return r.stdout
}

// mustFail runs the command line and fails the test unless it returns an
// error; it returns the error's text.
func mustFail(t *testing.T, getenv env, stdin io.Reader, args ...string) string {
	t.Helper()
	r := runCLI(t, getenv, stdin, args...)
	if r.err == nil {
		t.Fatalf("flagpole %s: got nil error, want one\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), r.stdout, r.stderr)
	}
	return r.err.Error()
}

// exportText runs `export -` on db and returns its standard output.
func exportText(t *testing.T, db string) string {
	t.Helper()
	return mustRun(t, "export", "--db", db, "-")
}

// exportRecords runs `export -` on db and decodes every line.
func exportRecords(t *testing.T, db string) []map[string]any {
	t.Helper()
	return decodeLines(t, exportText(t, db))
}

// decodeLines decodes JSON Lines into one map per line.
func decodeLines(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("export line %d is not a JSON object: %v\n%s", n, err, sc.Text())
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// writeFile writes text to a new file in the test's temporary directory.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lines splits text into its non-empty lines.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// syncBuffer is safe to write and read from several goroutines: the
// output of a running `serve`.
type syncBuffer = loadertest.Buffer
