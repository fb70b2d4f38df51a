package stream

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// hubMetrics are the stream counters; without a registerer they count
// unseen.
type hubMetrics struct {
	events, handoffs prometheus.Counter
	ends             *prometheus.CounterVec

	mu    sync.Mutex
	byWhy map[string]int
}

func newHubMetrics(reg prometheus.Registerer, h *Hub) *hubMetrics {
	m := &hubMetrics{byWhy: map[string]int{},
		events: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_stream_events_sent_total", Help: "Votes events written to live streams.",
		}),
		handoffs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flagpole_stream_handoffs_total",
			Help: "Stream writes handed to a goroutine of the stream's own, its client's socket buffer being full " +
				"(a slow reader; the shared writers go on with the other streams).",
		}),
		ends: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagpole_stream_ended_total",
			Help: "Live streams ended, by reason: revoked, shutdown, too_slow, gone (the client left), " +
				"write (a write failed, or the client took nothing for the write timeout).",
		}, []string{"reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.events, m.handoffs, m.ends, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "flagpole_streams_open", Help: "Live streams open now.",
		}, func() float64 { return float64(h.Len()) }))
	}
	return m
}

func (m *hubMetrics) sent(n int) { m.events.Add(float64(n)) }
func (m *hubMetrics) ended(reason string) {
	m.ends.WithLabelValues(reason).Inc()
	m.mu.Lock()
	m.byWhy[reason]++
	m.mu.Unlock()
}

// Len is the number of streams open.
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// Ended is the number of streams ended for reason so far.
func (h *Hub) Ended(reason string) int {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	return h.m.byWhy[reason]
}
