// Command freshness is bench/run's helper for what wrk cannot measure. It
// talks to the database only through the statements of the contract (the
// voting application's INSERTs) and to the API over HTTP.
//
//	freshness ready  -url URL -start-ns N [-timeout D] [-full]
//	    polls URL until it answers 200; prints {"ms": time since start-ns};
//	    with -full, also waits for snapshot.trendsLoaded (full_ms)
//	freshness writer -db URL [-rate N] [-duration D] [-workers W]
//	    inserts votes (INSERT INTO votes (flag_id, user_id, color) VALUES
//	    (?, ?, ?)) at N per second on random approved flags (of the first
//	    20,000 by id) until killed or until D has passed, from W voters at
//	    once; prints {"votes": n, "errors": n}
//	freshness fresh  -db URL -api BASE -key KEY [-n 50] [-interval D] [-poll D]
//	    writes n votes, one every interval on a different flag, and polls
//	    /flag/{slug} until its total moves; prints the delays' p50/p99
//	freshness ticks  -url READYZ [-duration D]
//	    samples /readyz and reports each new snapshot's lastLoadMs
//	freshness metrics -url METRICS
//	    prints the load, snapshot and allocation samples of /metrics as JSON
//	freshness pgdb   create|drop|comment|finish|prune|vacuum -url POSTGRES_URL ...
//	    manages the run's databases (and the cached seed) next to URL's
//
// The files: probe.go has the commands that only read the API (ready,
// ticks, metrics); voter.go the votes and writer; fresh.go fresh;
// pgdb.go pgdb.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: freshness ready|writer|fresh|ticks [flags]"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "ready":
		err = ready(ctx, os.Args[2:])
	case "writer":
		err = writer(ctx, os.Args[2:])
	case "fresh":
		err = fresh(ctx, os.Args[2:])
	case "ticks":
		err = ticks(ctx, os.Args[2:])
	case "metrics":
		err = metrics(ctx, os.Args[2:])
	case "pgdb":
		err = pgdb(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "freshness:", err)
	os.Exit(1)
}

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
