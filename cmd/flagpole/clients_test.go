package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// repoRoot is the checkout's root.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// tsBuilt compiles the TypeScript example once for the tests of this
// package (into its dist/, where node finds its packages).
var tsBuilt struct {
	once sync.Once
	err  error
}

// tsExample returns node and the TypeScript example's folder, built. Without
// node or the example's packages (npm ci in httpapi/client/ts) the test is
// skipped, and under CI=true it fails.
func tsExample(t *testing.T) (node, dir string) {
	t.Helper()
	dir = filepath.Join(repoRoot(t), "httpapi", "client", "ts")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "openapi-fetch"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but node or the TypeScript example's packages are missing (npm ci in %s): %v", dir, err)
		}
		t.Skipf("node or the TypeScript example's packages are missing (npm ci in %s): %v", dir, err)
	}
	tsBuilt.once.Do(func() {
		cmd := exec.Command(node, "node_modules/typescript/bin/tsc", "-p", ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			tsBuilt.err = fmt.Errorf("tsc: %v\n%s", err, out)
		}
	})
	if tsBuilt.err != nil {
		t.Fatal(tsBuilt.err)
	}
	return node, dir
}

// demo starts serve --demo and returns its base URL and database, once
// the trend history is loaded. Under the race detector it seeds into
// PostgreSQL when there is one (five times faster than SQLite then).
func demo(t *testing.T) (base, db string) {
	t.Helper()
	d := loader.SQLite
	if raceEnabled && os.Getenv("FLAGPOLE_TEST_POSTGRES") != "" {
		d = loader.Postgres
	}
	db = loadertest.URL(t, d)
	s := startServe(t, noEnv, "--demo", "--db", db, "--addr", "127.0.0.1:0", "--access-log=false")
	m := s.waitFor(t, "a curl line", 3*time.Minute, func() []string { return curlLine.FindStringSubmatch(s.stdout.String()) })
	u, err := url.Parse(m[2])
	if err != nil {
		t.Fatalf("the curl line's URL %q: %v", m[2], err)
	}
	base = "http://" + u.Host
	waitReady(t, s, base)
	s.waitFor(t, "a load of the trend history", time.Minute, func() []string {
		_, body := get(t, base+"/readyz", "")
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
	return base, db
}

// newKey makes a key on db and returns it once base accepts it.
func newKey(t *testing.T, base, db, name string, args ...string) string {
	t.Helper()
	key := strings.TrimSpace(mustRun(t, append([]string{"keys", "create", "--db", db, "--name", name}, args...)...))
	until(t, "the new key is accepted", 30*time.Second, func() bool { return getStatus(base+"/api/public/rate_limit", key) == 200 })
	return key
}

// runProgram runs a program with FLAGPOLE_KEY set and returns its output;
// it fails the test when the program fails.
func runProgram(t *testing.T, dir, key string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FLAGPOLE_KEY="+key)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// The example programs of the generated Go client and of the generated
// TypeScript client run against serve --demo: a filtered list, one flag,
// its trend, a search with highlights, the key's budget, and the typed
// errors of a 400, 401, 404 and a 429 with its Retry-After. Each program
// exits 1 when an answer is not what the document says, and the
// generated Go client fails to read any answer when the document declares
// a header without a type. The document's examples are answers of the
// same demo.
func TestClientsAgainstDemo(t *testing.T) {
	t.Parallel()
	base, db := demo(t)
	root := repoRoot(t)
	wantLines := []string{
		`search "yasli otob": `, "[Yaşlılara|prefix] [otobüste|prefix]", "rate_limit: ",
		"400: invalid_parameter, param limit: ", "404: not_found: ", "401: unauthorized: ", "429: rate_limited: ", "; Retry-After: ",
	}

	t.Run("examples", func(t *testing.T) {
		checkExamples(t, base, newKey(t, base, db, "examples", "--limit", "100000"))
	})
	t.Run("go", func(t *testing.T) {
		bin := filepath.Join(t.TempDir(), "example")
		cmd := exec.Command("go", "build", "-o", bin, "./httpapi/client/example")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build ./httpapi/client/example: %v\n%s", err, out)
		}
		out := runProgram(t, root, newKey(t, base, db, "go-example"), bin, "-url", base, "-spend")
		for _, want := range wantLines {
			if !strings.Contains(out, want) {
				t.Errorf("the Go example printed no %q:\n%s", want, out)
			}
		}
	})
	t.Run("typescript", func(t *testing.T) {
		node, dir := tsExample(t)
		out := runProgram(t, dir, newKey(t, base, db, "ts-example"), node, "dist/example.js", "--url", base, "--spend")
		for _, want := range wantLines {
			if !strings.Contains(out, want) {
				t.Errorf("the TypeScript example printed no %q:\n%s", want, out)
			}
		}
	})
}

// timeBound are the fields of the document's examples that depend on when
// the demo was seeded or read, and so are not compared.
var timeBound = map[string]bool{"createdAt": true, "generatedAt": true, "addedLast24h": true, "last24h": true,
	"last7d": true, "last30d": true, "snapshots": true}

// checkExamples asks the demo what each example of a data route shows and
// fails where the example differs from the answer: an example is the
// demo's answer, less the fields that depend on the time.
func checkExamples(t *testing.T, base, key string) {
	var doc struct {
		Paths map[string]struct {
			Get struct {
				Responses map[string]struct {
					Content map[string]struct {
						Example any `yaml:"example"`
					} `yaml:"content"`
				} `yaml:"responses"`
			} `yaml:"get"`
		} `yaml:"paths"`
	}
	if err := yaml.Unmarshal(httpapi.OpenAPIYAML, &doc); err != nil {
		t.Fatal(err)
	}
	example := func(path string) map[string]any {
		ex, _ := doc.Paths[path].Get.Responses["200"].Content["application/json"].Example.(map[string]any)
		if ex == nil {
			t.Fatalf("%s has no example of its 200", path)
		}
		return ex
	}
	flags, detail := example("/api/public/flags"), example("/api/public/flag/{slug}")
	trend, search := example("/api/public/flag/{slug}/trend"), example("/api/public/search")
	for query, ex := range map[string]map[string]any{
		fmt.Sprintf("flags?sort=%v&order=%v&limit=%v", flags["sort"], flags["order"], flags["limit"]):  flags,
		fmt.Sprintf("flag/%v", detail["slug"]):                                                         detail,
		fmt.Sprintf("flag/%v/trend?days=%v", trend["slug"], trend["days"]):                             trend,
		fmt.Sprintf("search?q=%s&limit=%v", url.QueryEscape(fmt.Sprint(search["q"])), search["limit"]): search,
		"categories": example("/api/public/categories"),
		"regions":    example("/api/public/regions"),
		"stats":      example("/api/public/stats"),
	} {
		st, body := get(t, base+"/api/public/"+query, key)
		var got any
		if err := json.Unmarshal(body, &got); st != 200 || err != nil {
			t.Errorf("/%s: %d %s", query, st, body)
			continue
		}
		if diff := exampleDiff("", normalize(ex), got); diff != "" {
			t.Errorf("the example of /%s is not the demo's answer: %s", query, diff)
		}
	}
	openapi := example("/api/public/openapi.json")
	if v := openapi["info"].(map[string]any)["version"]; v != docVersion(t) {
		t.Errorf("the example of openapi.json names version %v, the document is %s", v, docVersion(t))
	}
}

// docVersion is the document's info.version.
func docVersion(t *testing.T) string {
	var doc struct {
		Info struct{ Version string } `yaml:"info"`
	}
	if err := yaml.Unmarshal(httpapi.OpenAPIYAML, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Info.Version
}

// normalize turns a YAML value into the shapes encoding/json decodes to.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// exampleDiff says where want (an example) differs from got (an answer):
// every field of want must be in got with the same value, but for the
// time-bound ones; lists must have the same length.
func exampleDiff(at string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v, want an object", at, got)
		}
		for k, wv := range w {
			if timeBound[k] {
				continue
			}
			if d := exampleDiff(at+"."+k, wv, g[k]); d != "" {
				return d
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %v, want %d items", at, got, len(w))
		}
		for i := range w {
			if d := exampleDiff(fmt.Sprintf("%s[%d]", at, i), w[i], g[i]); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("%s: %v, want %v", at, got, want)
		}
	}
	return ""
}

// lineReader hands over the lines of r as they come.
func lineReader(r interface{ Read([]byte) (int, error) }) <-chan string {
	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// expectLine skips lines until one starts with prefix, and fails the test
// when none comes within timeout.
func expectLine(t *testing.T, who string, lines <-chan string, prefix string, timeout time.Duration) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s ended before a line %q", who, prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			t.Fatalf("%s printed no line %q within %s", who, prefix, timeout)
		}
	}
}
