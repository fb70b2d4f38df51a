package ratelimit_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// BenchmarkLocalAllow is one in-process decision.
func BenchmarkLocalAllow(b *testing.B) {
	l := ratelimit.NewLocal()
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			l.Allow(ctx, "key-"+strconv.Itoa(i%64), 1<<30, time.Now())
		}
	})
}

// BenchmarkRedisAllow is one shared decision: a round trip to Redis running
// the window script (what each request costs with --redis), two at a time.
func BenchmarkRedisAllow(b *testing.B) { benchRedis(b, 1) }

// BenchmarkRedisAllow64 is the same with 64 decisions in flight, as under
// 64 client connections: the round trips overlap.
func BenchmarkRedisAllow64(b *testing.B) { benchRedis(b, 32) }

func benchRedis(b *testing.B, parallelism int) {
	b.SetParallelism(parallelism)
	r, err := ratelimit.NewRedis(ratelimit.RedisOptions{URL: loadertest.RedisURL(b), Prefix: prefix(), Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Ping(ctx); err != nil {
		b.Fatal(err)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if _, err := r.Allow(ctx, "key-"+strconv.Itoa(i%64), 1<<30, time.Now()); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
