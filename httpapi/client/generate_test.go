package client

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// generateLine is the go:generate line of generate.go, split into words.
func generateLine(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(l, "//go:generate "); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatal("generate.go has no //go:generate line")
	return nil
}

// runGenerator runs words (a go run of oapi-codegen and its arguments) in
// this directory and fails the test when the generator fails or writes
// anything to standard error: a warning is a failure too.
func runGenerator(t *testing.T, words []string) []byte {
	t.Helper()
	if words[0] != "go" {
		t.Fatalf("the generate line runs %q, not go", words[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", words[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(words, " "), err, stderr.String())
	}
	if warned := withoutDownloads(stderr.String()); warned != "" {
		t.Fatalf("%s wrote to standard error (a warning fails the document):\n%s", strings.Join(words, " "), warned)
	}
	return stdout.Bytes()
}

// withoutDownloads is the standard error of go run less the lines in
// which go says it fetches a module (a first run on a machine whose
// module cache lacks the generator's): those are go's, not the
// generator's.
func withoutDownloads(stderr string) string {
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if line != "" && !strings.HasPrefix(line, "go: downloading ") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// withOutput returns words with the value of its -o flag replaced by out,
// or, for out "", with -o and its value left out (the code goes to
// standard output).
func withOutput(t *testing.T, words []string, out string) []string {
	t.Helper()
	var res []string
	found := false
	for i := 0; i < len(words); i++ {
		if words[i] == "-o" && i+1 < len(words) {
			found = true
			if out != "" {
				res = append(res, "-o", out)
			}
			i++
			continue
		}
		res = append(res, words[i])
	}
	if !found {
		t.Fatalf("the generate line %q has no -o", strings.Join(words, " "))
	}
	return res
}

// The committed client is what the generator makes of the document today:
// a change to openapi.yaml that is not regenerated, a hand edit of
// client.gen.go, or a document the generator refuses or warns about fails.
func TestGeneratedIsCurrent(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "client.gen.go")
	runGenerator(t, withOutput(t, generateLine(t), out))
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("client.gen.go differs from what the generator makes of ../openapi.yaml (%d bytes against %d): run go generate ./httpapi/client",
			len(want), len(got))
	}
}

// The generator run with nothing but the package name (its defaults:
// types, client, an echo server and the embedded document) takes the
// document without an error or a warning. (Not parallel: it builds the
// generator once, before TestGeneratedIsCurrent runs it from the cache.)
func TestGeneratorDefaults(t *testing.T) {
	words := generateLine(t)
	var plain []string
	for i := 0; i < len(words); i++ {
		switch {
		case words[i] == "-generate" || words[i] == "-o":
			i++
		case strings.HasSuffix(words[i], ".yaml"):
			plain = append(plain, "-package", "client", words[i])
		case words[i] == "-package":
			i++
		default:
			plain = append(plain, words[i])
		}
	}
	code := runGenerator(t, plain)
	for _, want := range []string{"type ServerInterface interface", "func GetSwagger()", "func (c *Client) ListFlags("} {
		if !bytes.Contains(code, []byte(want)) {
			t.Errorf("the default generation has no %q", want)
		}
	}
}

// withoutDownloads drops go's lines about fetching modules and keeps
// every other line, a warning of the generator's among them.
func TestWithoutDownloads(t *testing.T) {
	in := "go: downloading github.com/a/b v1.0.0\nWARNING: a schema has no type\ngo: downloading golang.org/x/c v0.1.0\n"
	if got := withoutDownloads(in); got != "WARNING: a schema has no type" {
		t.Errorf("withoutDownloads kept %q", got)
	}
	if got := withoutDownloads("go: downloading github.com/a/b v1.0.0\n"); got != "" {
		t.Errorf("withoutDownloads kept %q of downloads alone", got)
	}
}
