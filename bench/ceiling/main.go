// Command ceiling is the benchmark's yardstick: plain net/http answering
// every request with one fixed JSON body (the bytes of flagpole's default
// /flags page), so that bench/run can say how close flagpole comes to what
// this machine serves at all. "/" sends the body with Content-Type and
// Content-Length only; "/headers" sends it with the contract's thirteen
// headers, fixed (bench/yardstick): what net/http alone costs for them.
// With -paths (the JSON of a yardstick.Bodies, written by bench/plan),
// "/api/..." answers each path of the cases with the body flagpole sent
// for it, with the same headers: each case's own yardstick.
//
//	ceiling -addr 127.0.0.1:18099 -body page.json [-paths yardstick.json]
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/flagpole/flagpole/bench/yardstick"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18099", "listen address")
	file := flag.String("body", "", "file whose bytes every response carries")
	size := flag.Int("size", 6400, "body size when -body is not given")
	pathsFile := flag.String("paths", "", "JSON of each request URI's body (yardstick.Bodies), served under /api/")
	flag.Parse()
	var body []byte
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			log.Fatal(err)
		}
		body = b
	} else {
		b := make([]byte, *size)
		for i := range b {
			b[i] = 'x'
		}
		copy(b, `{"data":"`)
		copy(b[len(b)-2:], `"}`)
		body = b
	}
	var paths *yardstick.Bodies
	if *pathsFile != "" {
		b, err := os.ReadFile(*pathsFile)
		if err != nil {
			log.Fatal(err)
		}
		paths = new(yardstick.Bodies)
		if err := json.Unmarshal(b, paths); err != nil {
			log.Fatalf("%s: %v", *pathsFile, err)
		}
	}
	log.Fatal(http.ListenAndServe(*addr, yardstick.Mux(body, paths)))
}
