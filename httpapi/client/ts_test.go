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

// tsTools returns node and the TypeScript example's folder with its
// packages installed (npm ci there). Without them the test is skipped,
// and under CI=true it fails.
func tsTools(t *testing.T) (node, dir string) {
	t.Helper()
	dir, err := filepath.Abs("ts")
	if err != nil {
		t.Fatal(err)
	}
	node, err = exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "openapi-typescript"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but node or the TypeScript example's packages are missing (npm ci in %s): %v", dir, err)
		}
		t.Skipf("node or the TypeScript example's packages are missing (npm ci in %s): %v", dir, err)
	}
	return node, dir
}

// runNode runs a script of the example's packages with args in dir and
// returns its standard output; it fails the test on an error.
func runNode(t *testing.T, node, dir string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

// openapi-typescript makes, with its defaults and without a warning, the
// types committed as src/schema.d.ts; the example, the follower and those
// types compile under tsc --strict, and the follower passes its tests.
func TestTypeScriptGenerated(t *testing.T) {
	t.Parallel()
	node, dir := tsTools(t)
	out := filepath.Join(t.TempDir(), "schema.d.ts")
	stdout, stderr := runNode(t, node, dir, "node_modules/openapi-typescript/bin/cli.js", "../../openapi.yaml", "-o", out)
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if !strings.HasPrefix(l, "✨") && !strings.HasPrefix(l, "🚀") {
			t.Errorf("openapi-typescript said more than its name and the file it wrote (a warning fails the document):\n%s", stdout)
			break
		}
	}
	if stderr != "" {
		t.Errorf("openapi-typescript wrote to standard error (a warning fails the document):\n%s", stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "src", "schema.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("ts/src/schema.d.ts differs from what openapi-typescript makes of ../openapi.yaml: run npm run generate in %s", dir)
	}
	// One compilation, out of the tree, for both: the example, the follower
	// and the generated types under --strict, then the follower's own tests
	// (src/follow.test.ts, node's test runner) against scripted servers.
	out = t.TempDir()
	runNode(t, node, dir, "node_modules/typescript/bin/tsc", "-p", ".", "--strict", "--outDir", out)
	stdout, _ = runNode(t, node, dir, "--test", filepath.Join(out, "follow.test.js"))
	if !strings.Contains(stdout, "# pass 5") || !strings.Contains(stdout, "# fail 0") {
		t.Errorf("node --test follow.test.js:\n%s", stdout)
	}
}
