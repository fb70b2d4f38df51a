package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// The README's walk-through assumes this address and writes the key as
// this placeholder; the test puts the real ones in their place.
const (
	readmeAddr = "127.0.0.1:8080"
	readmeKey  = "grf_..."
)

// walkthroughBlock returns the lines of the first ```sh block under the
// README's "## Walk-through" heading.
func walkthroughBlock(t *testing.T, readme string) []string {
	t.Helper()
	const heading = "\n## Walk-through\n"
	start := strings.Index(readme, heading)
	if start < 0 {
		t.Fatal("README.md has no \"## Walk-through\" section")
	}
	section := readme[start+len(heading):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	_, rest, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the README's walk-through has no ```sh block")
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the README's walk-through block is not closed")
	}
	return strings.Split(strings.TrimRight(block, "\n"), "\n")
}

// isCommand tells whether a line of the block runs something.
func isCommand(line string) bool {
	l := strings.TrimSpace(line)
	return l != "" && !strings.HasPrefix(l, "#")
}

// marker separates the output of one line of the block from the next.
var marker = regexp.MustCompile(`(?m)^@@line (\d+)\n`)

// splitByLine maps each line number to the output printed after its marker.
func splitByLine(out string) map[int]string {
	parts := map[int]string{}
	locs := marker.FindAllStringSubmatchIndex(out, -1)
	for i, loc := range locs {
		n, _ := strconv.Atoi(out[loc[2]:loc[3]])
		end := len(out)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		parts[n] = out[loc[1]:end]
	}
	return parts
}

var curlStatus = regexp.MustCompile(`(?m)^@@status (\d+)\n`)

// earlyExit matches a pipe into a command that may stop reading before
// curl has written everything: curl then fails with "(23) Failure writing
// output", or not, depending on how the body's writes meet the pipe's
// buffer, so running the line once cannot be relied on to catch it.
var earlyExit = regexp.MustCompile(`\|\s*(head|grep\s+-\w*[qm]|sed\s+-n\s+\S*q)\b`)

// TestReadmeWalkthrough runs the shell block of the README's walk-through,
// line by line as a reader pastes it, against `serve --demo`: every line
// must succeed, every request must answer 200, curl must print nothing on
// standard error, and every `api` line must print JSON.
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	tools := map[string]string{}
	for _, tool := range []string{"bash", "curl", "cut"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true but %s is not on PATH: the README walk-through cannot run", tool)
			}
			t.Skipf("%s is not on PATH; skipping the README walk-through", tool)
		}
		tools[tool] = p
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := walkthroughBlock(t, string(readme))
	text := strings.Join(block, "\n")
	for _, want := range []string{readmeAddr, readmeKey} {
		if !strings.Contains(text, want) {
			t.Fatalf("the walk-through no longer mentions %q; update the test's placeholders with it:\n%s", want, text)
		}
	}

	// SQLite as `make run` uses; under the race detector the demo seeds
	// some five times faster into PostgreSQL, when there is one.
	d := loader.SQLite
	if raceEnabled && os.Getenv("FLAGPOLE_TEST_POSTGRES") != "" {
		d = loader.Postgres
	}
	s := startServe(t, noEnv, "--demo", "--db", loadertest.URL(t, d), "--addr", "127.0.0.1:0", "--access-log=false")
	m := s.waitFor(t, "a curl line", 3*time.Minute, func() []string { return curlLine.FindStringSubmatch(s.stdout.String()) })
	key := m[1]
	u, err := url.Parse(m[2])
	if err != nil {
		t.Fatalf("the curl line's URL %q: %v", m[2], err)
	}
	waitReady(t, s, "http://"+u.Host)
	// /trend answers 503 until the trend history is loaded, a moment after
	// readiness; a reader who has just read the printed key is past it.
	s.waitFor(t, "a load of the trend history", time.Minute, func() []string {
		_, body := get(t, "http://"+u.Host+"/readyz", "")
		var r struct {
			Snapshot struct {
				TrendsLoaded bool `json:"trendsLoaded"`
			} `json:"snapshot"`
		}
		if json.Unmarshal(body, &r) == nil && r.Snapshot.TrendsLoaded {
			return []string{}
		}
		return nil
	})

	// curl as the reader has it, plus --fail-with-body (an HTTP error
	// becomes exit 22, the body still shown) and the status of every
	// answer on standard error.
	bin := t.TempDir()
	shim := fmt.Sprintf("#!%s\nexec %q --fail-with-body -w '%%{stderr}@@status %%{http_code}\\n' \"$@\"\n", tools["bash"], tools["curl"])
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}

	var script strings.Builder
	script.WriteString("set -eo pipefail\n")
	for i, line := range block {
		if !isCommand(line) {
			continue
		}
		line = strings.ReplaceAll(line, readmeAddr, u.Host)
		line = strings.ReplaceAll(line, readmeKey, key)
		fmt.Fprintf(&script, "printf '@@line %d\\n'; printf '@@line %d\\n' >&2\n%s\n", i+1, i+1, line)
	}
	script.WriteString("printf '@@line 0\\n'; printf '@@line 0\\n' >&2\n")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tools["bash"], "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + cmd.Dir, "LC_ALL=C.UTF-8"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	outs, errs := splitByLine(stdout.String()), splitByLine(stderr.String())

	requests := 0
	for i, line := range block {
		n := i + 1
		if !isCommand(line) {
			continue
		}
		out, ran := outs[n]
		if !ran {
			t.Errorf("README walk-through line %d never ran (a line before it failed): %s", n, line)
			continue
		}
		statuses := curlStatus.FindAllStringSubmatch(errs[n], -1)
		for _, st := range statuses {
			if st[1] != "200" {
				t.Errorf("README walk-through line %d: HTTP %s, want 200: %s\n%.2000s", n, st[1], line, out)
			}
		}
		requests += len(statuses)
		first, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		if strings.Contains(line, "curl ") && earlyExit.MatchString(line) {
			t.Errorf("README walk-through line %d pipes curl into a command that stops reading early "+
				"(curl: (23) when it does): %s", n, line)
		}
		isRequest := first == "curl" || first == "api"
		if isRequest && len(statuses) == 0 {
			t.Errorf("README walk-through line %d sent no request: %s\nstderr: %s", n, line, errs[n])
		}
		if rest := strings.TrimSpace(curlStatus.ReplaceAllString(errs[n], "")); rest != "" {
			t.Errorf("README walk-through line %d printed on standard error: %s\n%s", n, line, rest)
		}
		if first == "api" && !json.Valid([]byte(out)) {
			t.Errorf("README walk-through line %d did not print JSON: %s\n%.2000s", n, line, out)
		}
	}
	if _, finished := outs[0]; runErr != nil || !finished {
		t.Errorf("the README walk-through did not run to its end: %v\nstderr:\n%s", runErr, stderr.String())
	}
	if requests == 0 {
		t.Error("the README walk-through sent no request")
	}
}
