// Command plan asks a running flagpole for what bench/run loads it with:
// it writes, into -out, one file of request paths per case (wrk.lua rotates
// through them), cases.tsv (name, paths file, "gzip" or "-", the number of
// paths, "prod" for the cases bench/run also measures with --redis and
// behind nginx, "-" for the others, and the paths file of the case's
// yardstick), the bytes of the default /flags page (the ceiling server's
// body) and plan.json (the numbers the paths were computed from). It then
// requests every path once and counts the answers that are not 200, so a
// broken case is known before wrk runs it (and the response cache is
// warm), and writes the bodies it got, by path, to yardstick.json: what
// bench/ceiling -paths answers each case's paths with.
//
//	plan -api http://127.0.0.1:18080 -key KEY -out DIR [-warm URL,URL]
//
// The files: main.go finds what the API serves; cases.go makes the cases;
// queries.go the searches; check.go writes the files and checks the paths;
// client.go talks to the API.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

var (
	base   = flag.String("api", "http://127.0.0.1:18080", "API base URL")
	key    = flag.String("key", "", "API key")
	out    = flag.String("out", ".", "output directory")
	nSlugs = flag.Int("slugs", 2000, "distinct slugs for /flag/{slug}")
	nTrend = flag.Int("trends", 1000, "distinct slugs for the trend case")
	nQuery = flag.Int("queries", 500, "distinct search queries")
	warm   = flag.String("warm", "", "comma-separated base URLs of other instances: the production cases' paths are requested from each once too")
)

type kase struct {
	name  string
	paths []string
	gzip  bool
	// check, when not 0, is how many of the paths are checked (and so
	// warm the caches) before wrk runs: the rest reach the server cold.
	check int
	// prod: bench/run also measures the case with --redis and with three
	// instances behind nginx.
	prod bool
}

var sorts = []string{"net", "total", "controversial", "newest"}
var categories = []string{"behavioral", "character", "communication", "cultural", "financial", "lifestyle", "relationship", "social"}
var dominants = []string{"red", "green", "yellow"}

const api = "/api/public"

// planner holds what the API serves, which the cases are made from.
type planner struct {
	total   int
	defBody []byte         // the default /flags page: the ceiling's body
	regions []string       // world and the 4 largest regions
	flags   []item         // flags spread over the whole list
	deep    map[string]int // the deep offsets used, for plan.json
	queries []string       // the ordinary searches
	refused int            // searches the API refused as too broad, replaced
	cases   []kase
}

func main() {
	flag.Parse()
	client.Transport = &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	p := discover()
	p.listCases()
	p.deepCases()
	p.worstFlags()
	p.detailCases()
	p.searchCases()
	p.add("categories", false, api+"/categories")
	p.add("regions", false, api+"/regions")
	p.add("stats", false, api+"/stats")
	p.add("flags-gzip", true, append([]string{api + "/flags"}, p.sortPages()...)...)
	for _, name := range []string{"flags-default", "flags-category-offset90", "flags-worst", "flag-slug", "trend",
		"search", "search-worst", "search-separators"} {
		p.mark(name)
	}
	var others []string
	if *warm != "" {
		others = strings.Split(*warm, ",")
	}
	bad, examples := writeCases(p.cases, others)
	summary := map[string]any{"total": p.total, "defaultPageBytes": len(p.defBody), "regions": p.regions,
		"slugs": min(*nSlugs, len(p.flags)), "queries": len(p.queries), "searchesRefused": p.refused,
		"deepOffsets": p.deep, "badPaths": bad, "badExamples": examples}
	b, _ := json.Marshal(summary) // one line: bench/run keeps it as one record
	if err := os.WriteFile(filepath.Join(*out, "plan.json"), b, 0o644); err != nil {
		fail(err)
	}
	for _, e := range examples {
		fmt.Fprintln(os.Stderr, "plan: not 200:", e)
	}
}

// discover reads the default page (the ceiling's body), the regions and
// a sample of flags spread over the whole list.
func discover() *planner {
	p := &planner{deep: map[string]int{}}
	var def page
	p.defBody = getJSON(api+"/flags", &def)
	if err := os.WriteFile(filepath.Join(*out, "ceiling-body.json"), p.defBody, 0o644); err != nil {
		fail(err)
	}
	p.total = def.Total
	if p.total == 0 {
		fail(fmt.Errorf("the API serves no flag"))
	}
	var regs struct {
		Data []struct {
			Code  *string `json:"code"`
			Count int     `json:"count"`
		} `json:"data"`
	}
	getJSON(api+"/regions", &regs)
	p.regions = []string{"world"}
	for _, r := range regs.Data {
		if r.Code != nil && len(p.regions) < 5 {
			p.regions = append(p.regions, strings.ToLower(*r.Code))
		}
	}
	seen := map[string]bool{}
	pages := (*nSlugs + 99) / 100
	for i := 0; i < pages; i++ {
		off := i * max(p.total-100, 0) / max(pages-1, 1)
		var pg page
		getJSON(fmt.Sprintf("%s/flags?sort=newest&limit=100&offset=%d", api, off), &pg)
		for _, f := range pg.Data {
			if !seen[f.Slug] {
				seen[f.Slug] = true
				p.flags = append(p.flags, f)
			}
		}
	}
	return p
}

func (p *planner) add(name string, gz bool, paths ...string) {
	p.cases = append(p.cases, kase{name: name, paths: paths, gzip: gz})
}

// mark makes the case called name one that bench/run also measures in
// production's modes.
func (p *planner) mark(name string) {
	for i := range p.cases {
		if p.cases[i].name == name {
			p.cases[i].prod = true
			return
		}
	}
	fail(fmt.Errorf("no case %q to mark", name))
}

// filteredTotal is how many flags the list with the filters q holds.
func filteredTotal(q string) int {
	var pg page
	getJSON(api+"/flags?limit=1&"+q, &pg)
	return pg.Total
}
