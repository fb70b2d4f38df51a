package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"
)

// slogPrinter is go-redis's logger interface on top of a slog.Logger.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Printf(ctx context.Context, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if !strings.HasPrefix(msg, "redis: ") {
		msg = "redis: " + msg
	}
	p.log.WarnContext(ctx, msg, "component", "go-redis")
}

// SetRedisLogger sends go-redis's own messages (dial failures, pool
// trouble) to log, so that they are lines of the service's log format
// rather than plain text on standard error. go-redis keeps one logger per
// process.
func SetRedisLogger(log *slog.Logger) { redis.SetLogger(slogPrinter{log}) }
