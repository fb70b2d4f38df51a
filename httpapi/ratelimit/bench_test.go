package ratelimit_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// BenchmarkLocalAllow is one in-process decision.
func BenchmarkLocalAllow(b *testing.B) {
	benchLimiter(b, ratelimit.NewLocal(), nil)
}

// BenchmarkRedisAllow is one shared decision with 64 decisions in flight,
// as under 64 client connections, over 300 keys far below their limits
// (go test -cpu 2). Besides ns/op it reports the client's CPU per
// decision (getrusage), Redis's CPU per decision (INFO cpu) and the
// script time per decision (INFO commandstats), all deltas over the run;
// Redis is shared, so other traffic on it adds to the last two.
func BenchmarkRedisAllow(b *testing.B) {
	r, err := ratelimit.NewRedis(ratelimit.RedisOptions{URL: loadertest.RedisURL(b), Prefix: prefix(), Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if err := r.Ping(context.Background()); err != nil {
		b.Fatal(err)
	}
	c := redisClient(b)
	defer c.Close()
	benchLimiter(b, r, c)
}

// BenchmarkRedisAllowPerRequest is the shared decision as it was: one
// EVALSHA per decision through go-redis's pool, the script with its six
// calls. The baseline the batched limiter is measured against.
func BenchmarkRedisAllowPerRequest(b *testing.B) {
	c := redisClient(b)
	defer c.Close()
	if err := perRequestScript.Load(context.Background(), c).Err(); err != nil {
		b.Fatal(err)
	}
	benchLimiter(b, &perRequest{c: redisPool(b), prefix: prefix()}, c)
}

func redisClient(tb testing.TB) *redis.Client {
	opt, err := redis.ParseURL(loadertest.RedisURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return redis.NewClient(opt)
}

// redisPool is the client as NewRedis configured it before batching.
func redisPool(tb testing.TB) *redis.Client {
	opt, _ := redis.ParseURL(loadertest.RedisURL(tb))
	opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = time.Second, time.Second, time.Second
	opt.MaxRetries, opt.PoolSize = 0, 64
	c := redis.NewClient(opt)
	tb.Cleanup(func() { c.Close() })
	return c
}

func benchLimiter(b *testing.B, l ratelimit.Limiter, info *redis.Client) {
	keys := make([]string, 300)
	for i := range keys {
		keys[i] = "key-" + strconv.Itoa(i)
	}
	ctx := context.Background()
	var next atomic.Uint64
	before := snapshot(b, info)
	b.ReportAllocs()
	b.SetParallelism(32) // 64 goroutines at -cpu 2
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := next.Add(7919)
		for pb.Next() {
			i++
			d, err := l.Allow(ctx, keys[i%uint64(len(keys))], 1<<30, time.Now())
			if err != nil || !d.Allowed {
				b.Errorf("refused: %+v %v", d, err)
				return
			}
		}
	})
	b.StopTimer()
	after := snapshot(b, info)
	n := float64(b.N)
	b.ReportMetric(float64(after.client-before.client)/n, "client-ns/op")
	if info != nil {
		b.ReportMetric(float64(after.redisCPU-before.redisCPU)/n, "redis-ns/op")
		b.ReportMetric(float64(after.scriptUsec-before.scriptUsec)*1000/n, "script-ns/op")
		b.ReportMetric(float64(after.calls-before.calls)/n, "evalsha/op")
	}
}

type usage struct {
	client     int64 // ns of this process's CPU
	redisCPU   int64 // ns of Redis's CPU
	scriptUsec int64 // EVALSHA's usec in commandstats
	calls      int64 // EVALSHA calls
}

func snapshot(tb testing.TB, c *redis.Client) usage {
	u := usage{client: processCPU()}
	if c == nil {
		return u
	}
	ctx := context.Background()
	cpu, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range []string{"used_cpu_sys:", "used_cpu_user:"} {
		u.redisCPU += int64(infoFloat(cpu, f) * 1e9)
	}
	stats, _ := c.Info(ctx, "commandstats").Result()
	if _, line, ok := strings.Cut(stats, "cmdstat_evalsha:"); ok {
		line, _, _ = strings.Cut(line, "\r\n")
		for _, kv := range strings.Split(line, ",") {
			k, v, _ := strings.Cut(kv, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				u.calls = n
			case "usec":
				u.scriptUsec = n
			}
		}
	}
	return u
}

func infoFloat(info, field string) float64 {
	_, v, ok := strings.Cut(info, field)
	if !ok {
		return 0
	}
	v, _, _ = strings.Cut(v, "\r\n")
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// perRequestScript is the window script as it was before batching.
var perRequestScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local win = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], win)
local left = 0
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then left = tonumber(oldest[2]) + win - now end
return {allowed, count, left}
`)

// perRequest decides as the shared limiter did before batching: one
// EVALSHA per decision.
type perRequest struct {
	c      *redis.Client
	prefix string
	seq    atomic.Uint64
}

func (p *perRequest) Allow(ctx context.Context, key string, limit int, now time.Time) (ratelimit.Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	member := "bench:" + strconv.FormatUint(p.seq.Add(1), 36)
	res, err := perRequestScript.Run(ctx, p.c, []string{p.prefix + "rl:" + key},
		ratelimit.Window.Milliseconds(), limit, member).Int64Slice()
	if err != nil {
		return ratelimit.Decision{}, err
	}
	return ratelimit.Decision{Allowed: res[0] == 1, Limit: limit, Remaining: limit - int(res[1]), Used: int(res[1]),
		Reset: now.Add(time.Duration(res[2]) * time.Millisecond)}, nil
}

func (p *perRequest) Peek(context.Context, string, int, time.Time) (ratelimit.Decision, error) {
	panic("not used")
}
