package httpapi

import (
	"math"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/httpapi/ratelimit"
)

// noStoreValue is the Cache-Control of answers that change per request.
var noStoreValue = []string{"no-store"}

// rateLimit answers GET /api/public/rate_limit: the key's budget, with the
// usual rate-limit headers, spending none of it. A spent budget is still a
// 200 (remaining 0), never a 429.
func (a *API) rateLimit(c *gin.Context) {
	key, ok := a.authenticate(c)
	if !ok {
		return
	}
	limit := key.Limit
	if limit <= 0 {
		limit = a.rateLimitNow()
	}
	now := a.now()
	d, err := a.limiter.Peek(c.Request.Context(), key.ID, limit, now)
	if err != nil {
		a.writeProblem(c, err)
		return
	}
	reset, left := resetOf(d, now)
	setRateHeaders(c.Writer.Header(), d.Limit, d.Remaining, reset, left)
	b := make([]byte, 0, 96)
	b = append(b, `{"limit":`...)
	b = strconv.AppendInt(b, int64(d.Limit), 10)
	b = append(b, `,"remaining":`...)
	b = strconv.AppendInt(b, int64(d.Remaining), 10)
	b = append(b, `,"reset":`...)
	b = strconv.AppendInt(b, reset, 10)
	b = append(b, `,"used":`...)
	b = strconv.AppendInt(b, int64(d.Used), 10)
	b = append(b, `,"window":`...)
	b = strconv.AppendInt(b, int64(ratelimit.Window.Seconds()), 10)
	b = append(b, '}')
	writePayload(c, newResponse(b), noStoreValue, jsonValue)
}

// resetOf is a decision's X-RateLimit-Reset (Unix seconds, rounded up) and
// the seconds left until then.
func resetOf(d ratelimit.Decision, now time.Time) (reset, left int64) {
	reset = int64(math.Ceil(float64(d.Reset.UnixMilli()) / 1000))
	left = max(int64(math.Ceil(d.Reset.Sub(now).Seconds())), 0)
	return reset, left
}
