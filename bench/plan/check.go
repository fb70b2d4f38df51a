package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/flagpole/flagpole/bench/yardstick"
)

// writeCases writes each case's paths file and cases.tsv, then requests
// each case's paths (its first check paths when check is set) once from
// the API, and those of the production cases from each of warm too (so
// that every instance's caches are as warm as the API's): it returns how
// many did not answer 200 per case, and up to 20 examples. The bodies the
// API answered are the cases' yardstick (yardstick.json, bench/ceiling
// -paths); a case of which only some paths are checked gets the checked
// ones as its yardstick's paths file, since only those have a body.
func writeCases(cases []kase, warm []string) (bad map[string]int, examples []string) {
	var tsv strings.Builder
	bad = map[string]int{}
	yard := yardstick.Bodies{Plain: map[string][]byte{}, Gzip: map[string][]byte{}}
	for _, c := range cases {
		file := filepath.Join(*out, c.name+".paths")
		writePaths(file, c.paths)
		gz, prod := "-", "-"
		if c.gzip {
			gz = "gzip"
		}
		if c.prod {
			prod = "prod"
		}
		checked, yfile := c.paths, file
		if c.check > 0 && c.check < len(c.paths) {
			checked = c.paths[:c.check]
			yfile = filepath.Join(*out, c.name+".yardstick.paths")
			writePaths(yfile, checked)
		}
		fmt.Fprintf(&tsv, "%s\t%s\t%s\t%d\t%s\t%s\n", c.name, file, gz, len(c.paths), prod, yfile)
		bases := []string{*base}
		if c.prod {
			bases = append(bases, warm...)
		}
		for i, b := range bases {
			n, ex, bodies := checkPaths(b, checked, c.gzip)
			if n > 0 {
				bad[c.name] += n
			}
			examples = append(examples, ex[:min(len(ex), 20-len(examples))]...)
			if i == 0 {
				dst := yard.Plain
				if c.gzip {
					dst = yard.Gzip
				}
				maps.Copy(dst, bodies)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(*out, "cases.tsv"), []byte(tsv.String()), 0o644); err != nil {
		fail(err)
	}
	b, err := json.Marshal(yard)
	if err == nil {
		err = os.WriteFile(filepath.Join(*out, "yardstick.json"), b, 0o644)
	}
	if err != nil {
		fail(err)
	}
	return bad, examples
}

// writePaths writes paths to file, one a line.
func writePaths(file string, paths []string) {
	if err := os.WriteFile(file, []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
		fail(err)
	}
}

// checkPaths requests each path once from the API at baseURL, 8 at a
// time, and returns how many did not answer 200 (with Content-Encoding:
// gzip when gz), with up to 20 examples, and the bodies of those that did.
func checkPaths(baseURL string, paths []string, gz bool) (bad int, examples []string, bodies map[string][]byte) {
	bodies = map[string][]byte{}
	work := make(chan string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				code, h, body, err := getFrom(baseURL, p, gz)
				mu.Lock()
				if err == nil && code == http.StatusOK && (!gz || h.Get("Content-Encoding") == "gzip") {
					bodies[p] = body
					mu.Unlock()
					continue
				}
				bad++
				if len(examples) < 20 {
					examples = append(examples, fmt.Sprintf("%s%s: %d %v %.200s", baseURL, p, code, err, body))
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	return bad, examples, bodies
}
