package micro_test

import (
	"context"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
)

func BenchmarkLimiterAllow(b *testing.B) {
	l := ratelimit.NewLocal()
	keys := []string{"k1", "k2", "k3", "k4"}
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			d, err := l.Allow(ctx, keys[i%len(keys)], 1<<30, time.Now())
			if err != nil || !d.Allowed {
				b.Fatalf("refused: %v", err)
			}
			i++
		}
	})
}
