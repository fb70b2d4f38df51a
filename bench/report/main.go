// Command report turns the records bench/run collected (one JSON object a
// line) into the benchmark's table, printed and written as Markdown, and
// into one JSON file per source under bench/results.
//
//	report -in results.jsonl -results bench/results
//	report -growth -results bench/results   # growth.md: the sizes compared
//
// The files: main.go reads the records and writes the results;
// results.go makes a source's cases and compares them with the ceiling;
// measures.go makes the rows that are not wrk cases; markdown.go and
// format.go print the table; growth.go compares the sizes.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// record is one line bench/run wrote: a wrk case or a named value.
type record struct {
	Source string          `json:"source"`
	Name   string          `json:"name"`
	Case   string          `json:"case"`
	Mode   string          `json:"mode"` // inproc (or empty), redis, nginx; "-" for the ceiling
	For    string          `json:"for"`  // a yardstick check: the case it is the yardstick of
	Paths  int             `json:"paths"`
	Gzip   bool            `json:"gzip"`
	Wrk    json.RawMessage `json:"wrk"`
	CPU    *cpuSeconds     `json:"cpu"` // the server side's CPU during the measured run
	Value  json.RawMessage `json:"value"`
}

func main() {
	in := flag.String("in", "", "records, one JSON object a line")
	dir := flag.String("results", "bench/results", "where to write <date>-<source>-<flags>.json and latest.md")
	grow := flag.Bool("growth", false, "instead: compare the newest result of each size in -results, write growth.md there")
	flag.Parse()
	if *grow {
		md, err := growth(*dir)
		if err == nil {
			err = os.WriteFile(filepath.Join(*dir, "growth.md"), []byte(md), 0o644)
		}
		if err != nil {
			fail(err)
		}
		fmt.Print(md)
		return
	}
	run, sources, bySource, err := readRecords(*in)
	if err != nil {
		fail(err)
	}
	flags := int(num(run["flags"]))
	date := time.Now().UTC().Format("2006-01-02")
	if s, ok := run["date"].(string); ok {
		date = s
	}
	var results []*Result
	for _, src := range sources {
		results = append(results, build(src, flags, date, run, bySource[src]))
	}
	if err := writeResults(*dir, results); err != nil {
		fail(err)
	}
	md := markdown(results, run)
	if err := os.WriteFile(filepath.Join(*dir, "latest.md"), []byte(md), 0o644); err != nil {
		fail(err)
	}
	fmt.Print(md)
}

// readRecords reads the file of records: the run's settings (the "run"
// and "run_end" records merged), and the other records by source, with
// the sources in the order they first appear. Bad lines are skipped with
// a warning.
func readRecords(path string) (run map[string]any, sources []string, bySource map[string][]record, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	bySource = map[string][]record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			fmt.Fprintf(os.Stderr, "report: skipping a bad record: %v: %.200s\n", err, sc.Text())
			continue
		}
		if r.Name == "run" || r.Name == "run_end" {
			var m map[string]any
			json.Unmarshal(r.Value, &m)
			if run == nil {
				run = map[string]any{}
			}
			for k, v := range m {
				run[k] = v
			}
			continue
		}
		if _, ok := bySource[r.Source]; !ok {
			sources = append(sources, r.Source)
		}
		bySource[r.Source] = append(bySource[r.Source], r)
	}
	return run, sources, bySource, sc.Err()
}

// writeResults writes each result as <date>-<source>-<flags>.json in dir.
func writeResults(dir string, results []*Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range results {
		b, _ := json.MarshalIndent(r, "", "  ")
		name := filepath.Join(dir, fmt.Sprintf("%s-%s-%d.json", r.Date, r.Source, r.Flags))
		if err := os.WriteFile(name, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "report: wrote", name)
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

// num reads a number of the run's settings, given as a number or a string.
func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
}

func ptr[T any](v T) *T { return &v }
