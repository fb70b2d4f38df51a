package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// writeCases writes each case's paths file and cases.tsv, then requests
// each case's paths (its first check paths when check is set) once from
// the API, and those of the production cases from each of warm too (so
// that every instance's caches are as warm as the API's): it returns how
// many did not answer 200 per case, and up to 20 examples.
func writeCases(cases []kase, warm []string) (bad map[string]int, examples []string) {
	var tsv strings.Builder
	bad = map[string]int{}
	for _, c := range cases {
		file := filepath.Join(*out, c.name+".paths")
		if err := os.WriteFile(file, []byte(strings.Join(c.paths, "\n")+"\n"), 0o644); err != nil {
			fail(err)
		}
		gz, prod := "-", "-"
		if c.gzip {
			gz = "gzip"
		}
		if c.prod {
			prod = "prod"
		}
		fmt.Fprintf(&tsv, "%s\t%s\t%s\t%d\t%s\n", c.name, file, gz, len(c.paths), prod)
		checked := c.paths
		if c.check > 0 {
			checked = c.paths[:min(c.check, len(c.paths))]
		}
		bases := []string{*base}
		if c.prod {
			bases = append(bases, warm...)
		}
		for _, b := range bases {
			n, ex := checkPaths(b, checked, c.gzip)
			if n > 0 {
				bad[c.name] += n
			}
			examples = append(examples, ex[:min(len(ex), 20-len(examples))]...)
		}
	}
	if err := os.WriteFile(filepath.Join(*out, "cases.tsv"), []byte(tsv.String()), 0o644); err != nil {
		fail(err)
	}
	return bad, examples
}

// checkPaths requests each path once from the API at baseURL, 8 at a
// time, and returns how many did not answer 200 (with Content-Encoding:
// gzip when gz), with up to 20 examples.
func checkPaths(baseURL string, paths []string, gz bool) (bad int, examples []string) {
	work := make(chan string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				code, h, body, err := getFrom(baseURL, p, gz)
				if err == nil && code == http.StatusOK && (!gz || h.Get("Content-Encoding") == "gzip") {
					continue
				}
				mu.Lock()
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
	return bad, examples
}
