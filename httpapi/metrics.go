package httpapi

import (
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the API's request counters and latency histograms.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	limited  prometheus.Counter
	// anonLimited counts the 429s of keyless traffic (by client address).
	anonLimited prometheus.Counter
	// children are the resolved counter and histogram of each series:
	// read without a lock, copied whole (under mu) to add one, which
	// happens once per series: the routes, methods and statuses are few.
	children atomic.Pointer[map[series]*seriesMetrics]
	mu       sync.Mutex
}

// series is one request counter's labels: route, method (methodLabel's
// index) and status.
type series struct {
	route  string
	method uint8
	status uint16
}

type seriesMetrics struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// methods are the method labels: the methods of RFC 9110 and PATCH, and
// "other" for any other token a client sends, so that no client can add
// series without bound.
var methods = [...]string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "TRACE", "other"}

// methodLabel is the index in methods of m's label.
func methodLabel(m string) uint8 {
	for i, name := range methods[:len(methods)-1] {
		if m == name {
			return uint8(i)
		}
	}
	return uint8(len(methods) - 1)
}

func newMetrics(reg prometheus.Registerer, a *API) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagpole_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "flagpole_http_request_duration_seconds", Help: "Time to answer a request, by route and status class (2xx, 4xx, ...; not the live stream's).",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}, []string{"route", "status_class"}),
		limited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_rate_limited_total", Help: "Requests refused with 429.",
		}),
		anonLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_anon_rate_limited_total",
			Help: "Requests without a valid key refused with 429 by the per-address limit (also in flagpole_rate_limited_total).",
		}),
	}
	m.children.Store(&map[series]*seriesMetrics{})
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.limited, m.anonLimited)
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "flagpole_anon_addresses", Help: "Client addresses the keyless limit remembers (0 while it is off).",
		}, func() float64 {
			if anon := a.anonLimiter(); anon != nil {
				return float64(anon.Len())
			}
			return 0
		}))
	}
	return m
}

// observe counts a request after it was answered.
func (a *API) observe(c *gin.Context) {
	start := time.Now()
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	status := c.Writer.Status()
	sm := a.metrics.series(series{route, methodLabel(c.Request.Method), uint16(min(max(status, 0), 999))})
	sm.count.Inc()
	if route != streamRoute { // a stream's time is how long the client followed it, not a latency
		sm.latency.Observe(time.Since(start).Seconds())
	}
	if status == 429 {
		a.metrics.limited.Inc()
	}
}

// series returns the counter and histogram of key, resolving them once.
func (m *metrics) series(key series) *seriesMetrics {
	if sm, ok := (*m.children.Load())[key]; ok {
		return sm
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.children.Load()
	if sm, ok := old[key]; ok {
		return sm
	}
	sm := &seriesMetrics{
		count:   m.requests.WithLabelValues(key.route, methods[key.method], strconv.Itoa(int(key.status))),
		latency: m.latency.WithLabelValues(key.route, statusClass(key.status)),
	}
	next := make(map[series]*seriesMetrics, len(old)+1)
	maps.Copy(next, old)
	next[key] = sm
	m.children.Store(&next)
	return sm
}

// statusClasses are the status_class labels of the latency histogram.
var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

// statusClass is the class of status: 2xx for 200, and so on; "other"
// outside 100-599.
func statusClass(status uint16) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return statusClasses[status/100-1]
}
