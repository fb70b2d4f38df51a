// Command live measures how fast a change in PostgreSQL reaches the API
// of several instances that listen for it, what an idle instance costs
// the database, and (with -streams) what open live streams cost one
// instance. It writes votes only through the contract's statements and
// reads only over HTTP.
//
//	go build -o /tmp/flagpole ./cmd/flagpole
//	go run ./bench/live -bin /tmp/flagpole -db postgres://.../seeded?sslmode=disable \
//	    [-instances 3] [-rate 200] [-duration 30s] [-samples 200] [-revokes 30] \
//	    [-idle 60s] [-streams 10000 [-firehose]]
//
// -db names a database seeded beforehand (flagpole seed --flags 100000);
// the command works on a copy of it (CREATE DATABASE ... TEMPLATE) and
// drops the copy at the end. It prints one JSON object per measure.
//
// With -cluster it runs as operators do on a replicated PostgreSQL
// instead: it starts a primary and a streaming replica of its own
// (loadertest.NewCluster; -lag sets the replica's recovery_min_apply_delay),
// seeds the primary (-seed-flags), and the instances read the replica and
// listen to the primary as the role flagpole_api while the votes are
// written as the role voting_app (docs/deploy.md's grants, neither a
// superuser). The idle measure is left out there.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/lib/pq"

	"github.com/flagpole/flagpole/loader/loadertest"
)

type opts struct {
	bin, db          string
	instances        int
	rate             int
	duration, idle   time.Duration
	samples, revokes int
	streams          int
	firehose         bool
	cluster          bool
	lag              time.Duration
	seedFlags        int
}

func main() {
	var o opts
	flag.StringVar(&o.bin, "bin", "/tmp/flagpole", "the flagpole binary")
	flag.StringVar(&o.db, "db", "", "a seeded PostgreSQL database (copied, never written)")
	flag.IntVar(&o.instances, "instances", 3, "serve instances")
	flag.IntVar(&o.rate, "rate", 200, "background votes a second")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "how long the votes are timed")
	flag.IntVar(&o.samples, "samples", 200, "votes timed to visible on every instance")
	flag.IntVar(&o.revokes, "revokes", 30, "revocations timed to 401 on every instance")
	flag.DurationVar(&o.idle, "idle", 60*time.Second, "how long idle instances are watched (push on, then polling)")
	flag.IntVar(&o.streams, "streams", 0, "live streams opened on the first instance (0: none)")
	flag.BoolVar(&o.firehose, "firehose", false, "the streams follow every flag, not the 100 the samples vote on")
	flag.BoolVar(&o.cluster, "cluster", false, "a primary and a streaming replica of the bench's own, separate roles")
	flag.DurationVar(&o.lag, "lag", 300*time.Millisecond, "with -cluster: the replica's recovery_min_apply_delay")
	flag.IntVar(&o.seedFlags, "seed-flags", 100000, "with -cluster: flags seeded on the primary")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "live:", err)
		os.Exit(1)
	}
}

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func run(o opts) error {
	var dbURL, adminURL string
	var serveArgs []string
	if o.cluster {
		c, err := cluster(o)
		if err != nil {
			return err
		}
		defer c.Stop()
		adminURL, dbURL = c.Primary, loadertest.As(c.Primary, "voting_app")
		serveArgs = []string{"--db", loadertest.As(c.Primary, "flagpole_api"), "--db-replica", loadertest.As(c.Replica, "flagpole_api")}
	} else {
		if o.db == "" {
			return errors.New("-db or -cluster is required")
		}
		copied, drop, err := copyDB(o.db)
		if err != nil {
			return err
		}
		defer drop()
		adminURL, dbURL = copied, copied
		serveArgs = []string{"--db", copied}
	}
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	// As many idle as open: with database/sql's default of 2 idle, the
	// writers' connections beyond two closed after each vote and the next
	// vote forked a new PostgreSQL backend, a cost of the bench, not of
	// what it measures.
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	key, err := cli(o.bin, "keys", "create", "--db", adminURL, "--name", "bench-live", "--limit", "100000000")
	if err != nil {
		return err
	}
	key = strings.TrimSpace(key)
	var streamArgs []string
	if o.streams > 0 {
		streamArgs = []string{"--max-streams-per-key", "100000", "--max-conns", strconv.Itoa(o.streams + 1000)}
	}
	insts, err := startAll(o, append(serveArgs, streamArgs...))
	if err != nil {
		return err
	}
	var ids, slugs []string
	rows, err := db.Query("SELECT id, slug FROM flags WHERE status = 'APPROVED'")
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, slug string
		rows.Scan(&id, &slug)
		ids, slugs = append(ids, id), append(slugs, slug)
	}
	rows.Close()
	emit(map[string]any{"flags": len(ids), "instances": o.instances, "rate": o.rate})

	ctx, stopWriter := context.WithCancel(context.Background())
	var written atomic.Int64
	go background(ctx, db, ids, o.rate, &written)
	if o.streams > 0 {
		if err := measureStreams(o, db, insts[0], key, ids, slugs); err != nil {
			stopWriter()
			return err
		}
	}
	if err := measureVisible(o, db, insts, key, ids, slugs); err != nil {
		stopWriter()
		return err
	}
	if err := measureRevoke(o, admin, insts); err != nil {
		stopWriter()
		return err
	}
	stopWriter()
	emit(map[string]any{"backgroundVotes": written.Load()})
	if o.cluster || o.idle <= 0 {
		stopAll(insts)
		return nil
	}
	// The idle measures run on instances started afresh, first listening,
	// then polling. A PostgreSQL backend reports its transactions to
	// pg_stat_database when it ends or, idle, ten seconds (under
	// contention up to a minute) after its last statement: measured on the
	// instances of the loaded phase, the counts of that phase's loads and
	// votes arrived during the idle minute. Every connection of that phase
	// is closed first, so that each reports at once.
	stopAll(insts)
	db.SetMaxIdleConns(0)
	insts, err = startAll(o, serveArgs)
	if err != nil {
		return err
	}
	push, pushLoads, err := idleCost(db, insts, o.idle)
	stopAll(insts)
	if err != nil {
		return err
	}
	insts, err = startAll(o, append(serveArgs, "--listen=false"))
	if err != nil {
		return err
	}
	poll, pollLoads, err := idleCost(db, insts, o.idle)
	stopAll(insts)
	if err != nil {
		return err
	}
	emit(map[string]any{"idle": true, "pushXactsPerMinutePerInstance": push, "pollingXactsPerMinutePerInstance": poll,
		"pushOverPolling": push / poll, "pushLoadsPerMinutePerInstance": pushLoads, "pollingLoadsPerMinutePerInstance": pollLoads})
	return nil
}

// instance is one running `flagpole serve`.
type instance struct {
	cmd         *exec.Cmd
	base, admin string
}

func startAll(o opts, args []string) ([]*instance, error) {
	var out []*instance
	for i := 0; i < o.instances; i++ {
		in, err := start(o.bin, args)
		if err != nil {
			stopAll(out)
			return nil, err
		}
		out = append(out, in)
	}
	for _, in := range out {
		if err := waitHistory(in); err != nil {
			stopAll(out)
			return nil, err
		}
	}
	return out, nil
}

var addrRe = regexp.MustCompile(`"msg":"listening".*?"addr":"([^"]+)".*?"admin_addr":"([^"]+)"`)

func start(bin string, extra []string) (*instance, error) {
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
		"--access-log=false", "--snapshot-daily=false", "--log-format", "json", "--max-conns-per-ip", "0",
		"--cache-mb", "64"}, extra...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		sent := false
		for sc.Scan() {
			if m := addrRe.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m
				sent = true
			}
			if os.Getenv("LIVE_LOG") != "" {
				fmt.Fprintln(os.Stderr, sc.Text())
			}
		}
	}()
	select {
	case m := <-found:
		return &instance{cmd: cmd, base: "http://" + m[1], admin: "http://" + m[2]}, nil
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, errors.New("serve printed no address within 60 s")
	}
}

func stopAll(insts []*instance) {
	for _, in := range insts {
		in.cmd.Process.Signal(os.Interrupt)
	}
	for _, in := range insts {
		in.cmd.Wait()
	}
}

// waitHistory waits until the instance is ready and its trend history is
// loaded (the admin /readyz says so).
func waitHistory(in *instance) error {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := http.Get(in.admin + "/readyz")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && strings.Contains(string(b), `"trendsLoaded":true`) {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return errors.New("an instance was not ready with its trend history within 5 minutes")
}

var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}

// redOf is the red count an instance serves for slug.
func redOf(base, key, slug string) (int64, int, error) {
	req, _ := http.NewRequest("GET", base+"/api/public/flag/"+url.PathEscape(slug), nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	var f struct{ Votes struct{ Red int64 } }
	if resp.StatusCode != 200 {
		io.Copy(io.Discard, resp.Body)
		return 0, resp.StatusCode, nil
	}
	err = json.NewDecoder(resp.Body).Decode(&f)
	return f.Votes.Red, 200, err
}

var userSeq atomic.Int64

// vote writes one vote of a new user through the contract's statements
// and returns the flag's red count right after its commit.
func vote(db *sql.DB, id, color string) (int64, error) {
	user := fmt.Sprintf("live-%d-%d", time.Now().UnixNano(), userSeq.Add(1))
	if _, err := db.Exec("INSERT INTO users (id) VALUES ($1)", user); err != nil {
		return 0, err
	}
	if _, err := db.Exec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, $2, $3)", id, user, color); err != nil {
		return 0, err
	}
	var red int64
	err := db.QueryRow("SELECT red_count FROM flags WHERE id = $1", id).Scan(&red)
	return red, err
}

func pick(n int) int {
	v, _ := rand.Int(rand.Reader, big.NewInt(int64(n)))
	return int(v.Int64())
}

// background votes green at rate a second on random flags until ctx ends.
func background(ctx context.Context, db *sql.DB, ids []string, rate int, n *atomic.Int64) {
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	sem := make(chan struct{}, 16)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		select {
		case sem <- struct{}{}:
			go func() {
				defer func() { <-sem }()
				if _, err := vote(db, ids[pick(len(ids))], "green"); err == nil {
					n.Add(1)
				}
			}()
		default: // the database is behind: skip rather than queue
		}
	}
}

func pct(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := min(len(d)-1, int(float64(len(d))*p/100))
	return float64(d[i].Microseconds()) / 1000
}

// measureVisible times votes from their commit to the moment every
// instance serves them, polling each every 2 ms.
func measureVisible(o opts, db *sql.DB, insts []*instance, key string, ids, slugs []string) error {
	var delays []time.Duration
	every := o.duration / time.Duration(o.samples)
	n0, s0, r0 := make([]float64, len(insts)), make([]float64, len(insts)), make([]float64, len(insts))
	for k, in := range insts {
		n0[k], s0[k] = flagLoads(in)
		r0[k] = metric(in, `flagpole_load_rows_total{job="flags"}`)
	}
	began := time.Now()
	for s := 0; s < o.samples; s++ {
		i := pick(len(ids))
		red, err := vote(db, ids[i], "red")
		if err != nil {
			return err
		}
		delays = append(delays, everyInstance(insts, time.Now(), func(in *instance) bool {
			got, _, err := redOf(in.base, key, slugs[i])
			return err == nil && got >= red
		})...)
		time.Sleep(every)
	}
	// What each instance's loads cost meanwhile: how many a second and
	// how long each took on average.
	// And how many rows each read: the flags written since the load
	// before and their last 30 days' vote times.
	var perSec, meanMS, rows []float64
	for k, in := range insts {
		n, secs := flagLoads(in)
		perSec = append(perSec, (n-n0[k])/time.Since(began).Seconds())
		meanMS = append(meanMS, 1000*(secs-s0[k])/max(n-n0[k], 1))
		rows = append(rows, (metric(in, `flagpole_load_rows_total{job="flags"}`)-r0[k])/max(n-n0[k], 1))
	}
	emit(map[string]any{"visible": true, "samples": len(delays), "p50ms": pct(delays, 50), "p99ms": pct(delays, 99),
		"maxms": pct(delays, 100), "loadsPerSecond": perSec, "loadMeanMS": meanMS, "rowsPerLoad": rows})
	return nil
}

// measureRevoke times revocations from their commit to a 401 on every
// instance.
func measureRevoke(o opts, db *sql.DB, insts []*instance) error {
	var delays []time.Duration
	for r := 0; r < o.revokes; r++ {
		secret, id, err := insertKey(db)
		if err != nil {
			return err
		}
		for _, in := range insts { // wait until every instance knows it
			for {
				if _, st, _ := redOf(in.base, secret, "-"); st == 404 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		if _, err := db.Exec("UPDATE api_keys SET revoked_at = now() WHERE id = $1", id); err != nil {
			return err
		}
		delays = append(delays, everyInstance(insts, time.Now(), func(in *instance) bool {
			_, st, _ := redOf(in.base, secret, "-")
			return st == 401
		})...)
	}
	emit(map[string]any{"revocation": true, "samples": len(delays), "p50ms": pct(delays, 50), "p99ms": pct(delays, 99),
		"maxms": pct(delays, 100)})
	return nil
}

// everyInstance polls seen on each instance every 2 ms, for 30 s at most,
// and returns how long after committed each first saw it.
func everyInstance(insts []*instance, committed time.Time, seen func(*instance) bool) []time.Duration {
	var mu sync.Mutex
	var out []time.Duration
	var wg sync.WaitGroup
	for _, in := range insts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(committed) < 30*time.Second {
				if seen(in) {
					mu.Lock()
					out = append(out, time.Since(committed))
					mu.Unlock()
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	return out
}

// insertKey stores a new key as `keys create` does and returns it.
func insertKey(db *sql.DB) (secret, id string, err error) {
	var b [16]byte
	rand.Read(b[:])
	secret = "grf_" + hex.EncodeToString(b[:])
	id = "key_bench_" + hex.EncodeToString(b[:6])
	_, err = db.Exec("INSERT INTO api_keys (id, name, key_hash, prefix, rate_limit) VALUES ($1, 'bench', $2, $3, 100000000)",
		id, hashHex(secret), secret[:8])
	return secret, id, err
}

// idleCost is the database transactions a minute per idle instance over
// d (no writes, no requests), and the loads a minute each ran (from their
// /metrics), which tell the instances' own part.
func idleCost(db *sql.DB, insts []*instance, d time.Duration) (xacts, loads float64, err error) {
	// Let the last loads finish, and let every pooled backend report what
	// it did before: PostgreSQL's idle backends report about ten seconds
	// after their last statement.
	time.Sleep(12 * time.Second)
	read := func() (int64, float64, error) {
		var n int64
		// The statistics of a backend reach the view within a second.
		time.Sleep(1500 * time.Millisecond)
		err := db.QueryRow("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()").Scan(&n)
		total := 0.0
		for _, in := range insts {
			total += loadsOf(in)
		}
		return n, total, err
	}
	a, la, err := read()
	if err != nil {
		return 0, 0, err
	}
	time.Sleep(d)
	b, lb, err := read()
	if err != nil {
		return 0, 0, err
	}
	per := d.Minutes() * float64(len(insts))
	// Less the two reads of this function and the one between them.
	return float64(b-a-2) / per, (lb - la) / per, nil
}

// loadsOf is the sum of an instance's flagpole_loads_total (flags and
// keys, any result); 0 if /metrics cannot be read.
func loadsOf(in *instance) float64 { return metric(in, "flagpole_loads_total{") }

// metric sums the samples of an instance's /metrics whose line starts
// with prefix; 0 if /metrics cannot be read.
func metric(in *instance, prefix string) float64 {
	resp, err := http.Get(in.admin + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		if v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// flagLoads is the number of flag loads an instance ran and the seconds
// they took.
func flagLoads(in *instance) (n, secs float64) {
	return metric(in, `flagpole_load_duration_seconds_count{job="flags"}`), metric(in, `flagpole_load_duration_seconds_sum{job="flags"}`)
}

func cli(bin string, args ...string) (string, error) {
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("flagpole %s: %v: %s", args[0], err, ee.Stderr)
		}
		return "", err
	}
	return string(out), nil
}

// cluster starts the bench's primary and replica, seeds the primary and
// creates the two roles of docs/deploy.md.
func cluster(o opts) (*loadertest.Cluster, error) {
	c, err := loadertest.NewCluster(loadertest.ClusterOptions{ApplyDelay: o.lag})
	if err != nil {
		return nil, err
	}
	if _, err := cli(o.bin, "seed", "--db", c.Primary, "--flags", strconv.Itoa(o.seedFlags)); err != nil {
		c.Stop()
		return nil, err
	}
	admin, err := sql.Open("postgres", c.Primary)
	if err != nil {
		c.Stop()
		return nil, err
	}
	defer admin.Close()
	for _, q := range []string{
		"CREATE ROLE flagpole_api LOGIN",
		"GRANT SELECT ON flags, votes, users, flag_snapshots, api_keys, data_changes, goose_db_version TO flagpole_api",
		"CREATE ROLE voting_app LOGIN",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON votes TO voting_app",
		"GRANT SELECT, INSERT ON users TO voting_app",
		"GRANT SELECT, UPDATE ON flags TO voting_app",
		"VACUUM ANALYZE",
	} {
		if _, err := admin.Exec(q); err != nil {
			c.Stop()
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	if err := c.Replayed(5 * time.Minute); err != nil {
		c.Stop()
		return nil, err
	}
	emit(map[string]any{"cluster": true, "lagMs": o.lag.Milliseconds(), "seeded": o.seedFlags})
	return c, nil
}

// copyDB makes a copy of the seeded database beside it.
func copyDB(src string) (string, func(), error) {
	u, err := url.Parse(src)
	if err != nil {
		return "", nil, err
	}
	tpl := strings.TrimPrefix(u.Path, "/")
	admin, err := sql.Open("postgres", src)
	if err != nil {
		return "", nil, err
	}
	admin.Close()
	u2 := *u
	u2.Path = "/postgres"
	admin, err = sql.Open("postgres", u2.String())
	if err != nil {
		return "", nil, err
	}
	var b [4]byte
	rand.Read(b[:])
	name := "flagpole_live_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE DATABASE " + name + " TEMPLATE " + tpl); err != nil {
		admin.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		admin.Close()
	}, nil
}
