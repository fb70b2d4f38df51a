package httpapi

import (
	"strconv"
	"sync"
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
	children    sync.Map // series -> the resolved counter and histogram
}

type series struct {
	route, method string
	status        int
}

type seriesMetrics struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

func newMetrics(reg prometheus.Registerer, a *API) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagpole_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "flagpole_http_request_duration_seconds", Help: "Time to answer a request, by route.",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}, []string{"route"}),
		limited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_rate_limited_total", Help: "Requests refused with 429.",
		}),
		anonLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_anon_rate_limited_total",
			Help: "Requests without a valid key refused with 429 by the per-address limit (also in flagpole_rate_limited_total).",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.limited, m.anonLimited)
		if a.anon != nil {
			reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "flagpole_anon_addresses", Help: "Client addresses the keyless limit remembers.",
			}, func() float64 { return float64(a.anon.Len()) }))
		}
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
	key := series{route, c.Request.Method, status}
	m, ok := a.metrics.children.Load(key)
	if !ok {
		m, _ = a.metrics.children.LoadOrStore(key, &seriesMetrics{
			count:   a.metrics.requests.WithLabelValues(route, key.method, strconv.Itoa(status)),
			latency: a.metrics.latency.WithLabelValues(route),
		})
	}
	sm := m.(*seriesMetrics)
	sm.count.Inc()
	if route != streamRoute { // a stream's time is how long the client followed it, not a latency
		sm.latency.Observe(time.Since(start).Seconds())
	}
	if status == 429 {
		a.metrics.limited.Inc()
	}
}
