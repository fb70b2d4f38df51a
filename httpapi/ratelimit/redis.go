package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

var _ Limiter = (*Redis)(nil)

// windowScript decides one request atomically, on Redis's own clock so
// that every instance agrees: drop what left the window, count, add the
// request when the budget allows, and report the time left until the
// oldest request leaves. One round trip per request.
var windowScript = redis.NewScript(`
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

// peekScript reads a key's window without changing it.
var peekScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local win = tonumber(ARGV[1])
local count = redis.call('ZCOUNT', KEYS[1], '(' .. (now - win), '+inf')
local left = 0
local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - win), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if oldest[2] then left = tonumber(oldest[2]) + win - now end
return {count, left}
`)

// Redis keeps one rolling window per key in a Redis sorted set, shared by
// every instance that uses the same server and prefix. A key that Redis
// refused is refused locally until its reset time, without a round trip:
// a refused request does not count, so the window cannot free a slot
// before the oldest request leaves it, on any instance.
type Redis struct {
	client  *redis.Client
	prefix  string
	timeout time.Duration
	member  string // this instance's part of each member, so members never collide
	seq     atomic.Uint64
	refused sync.Map // key -> refusal: over the limit until reset
	local   atomic.Int64
}

// refusal is a key's last refusal by Redis.
type refusal struct {
	limit int
	used  int
	reset time.Time
}

// RedisOptions configure a Redis limiter.
type RedisOptions struct {
	URL     string        // redis://host:port/db
	Prefix  string        // key prefix; instances sharing a budget share it
	Timeout time.Duration // per decision; past it the caller falls back
}

// NewRedis connects to Redis; it does not fail when Redis is down (the
// fallback covers that), only when the URL is wrong.
func NewRedis(o RedisOptions) (*Redis, error) {
	opt, err := redis.ParseURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("redis URL: %w", err)
	}
	if o.Timeout <= 0 {
		o.Timeout = 100 * time.Millisecond
	}
	opt.DialTimeout = 4 * o.Timeout
	opt.ReadTimeout = o.Timeout
	opt.WriteTimeout = o.Timeout
	opt.MaxRetries = 0
	opt.PoolSize = 64
	opt.PoolTimeout = o.Timeout
	var b [6]byte
	rand.Read(b[:])
	return &Redis{client: redis.NewClient(opt), prefix: o.Prefix, timeout: o.Timeout,
		member: hex.EncodeToString(b[:])}, nil
}

// Close closes the connections.
func (r *Redis) Close() error { return r.client.Close() }

// Ping checks that Redis answers and loads the script, so that the first
// decision costs one round trip like every other.
func (r *Redis) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := r.client.Ping(ctx).Err(); err != nil {
		return err
	}
	if err := windowScript.Load(ctx, r.client).Err(); err != nil {
		return err
	}
	return peekScript.Load(ctx, r.client).Err()
}

// LocalRefusals counts the requests refused without asking Redis.
func (r *Redis) LocalRefusals() int64 { return r.local.Load() }

// refusedUntil answers for a key that Redis refused and whose reset time
// has not come.
func (r *Redis) refusedUntil(key string, limit int, now time.Time) (Decision, bool) {
	v, ok := r.refused.Load(key)
	if !ok {
		return Decision{}, false
	}
	f := v.(*refusal)
	if f.limit != limit || !now.Before(f.reset) {
		return Decision{}, false
	}
	return Decision{Limit: limit, Used: f.used, Reset: f.reset}, true
}

// Sweep forgets the refusals whose reset time has passed.
func (r *Redis) Sweep(now time.Time) {
	r.refused.Range(func(k, v any) bool {
		if !now.Before(v.(*refusal).reset) {
			r.refused.CompareAndDelete(k, v)
		}
		return true
	})
}

// Allow spends one request of key's budget in Redis.
func (r *Redis) Allow(ctx context.Context, key string, limit int, now time.Time) (Decision, error) {
	if d, ok := r.refusedUntil(key, limit, now); ok {
		r.local.Add(1)
		return d, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	member := r.member + ":" + strconv.FormatUint(r.seq.Add(1), 36)
	res, err := windowScript.Run(ctx, r.client, []string{r.prefix + "rl:" + key},
		Window.Milliseconds(), limit, member).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("redis rate limit: %w", err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("redis rate limit: unexpected answer %v", res)
	}
	d := Decision{Allowed: res[0] == 1, Limit: limit, Remaining: max(limit-int(res[1]), 0), Used: int(res[1]),
		Reset: now.Add(time.Duration(res[2]) * time.Millisecond)}
	if !d.Allowed {
		r.refused.Store(key, &refusal{limit: limit, used: d.Used, reset: d.Reset})
	}
	return d, nil
}

// Peek reads key's budget in Redis without spending any of it.
func (r *Redis) Peek(ctx context.Context, key string, limit int, now time.Time) (Decision, error) {
	if d, ok := r.refusedUntil(key, limit, now); ok {
		return d, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := peekScript.Run(ctx, r.client, []string{r.prefix + "rl:" + key}, Window.Milliseconds()).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("redis rate limit: %w", err)
	}
	if len(res) != 2 {
		return Decision{}, fmt.Errorf("redis rate limit: unexpected answer %v", res)
	}
	used := int(res[0])
	d := Decision{Allowed: used < limit, Limit: limit, Remaining: max(limit-used, 0), Used: used, Reset: now}
	if used > 0 {
		d.Reset = now.Add(time.Duration(res[1]) * time.Millisecond)
	}
	return d, nil
}
