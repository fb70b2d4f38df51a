package stream

// SetMaxPerKey makes n (0: 5) the most streams one key may hold open from
// now on; a key that holds more already keeps them until they end.
func (h *Hub) SetMaxPerKey(n int) {
	if n <= 0 {
		n = 5
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.opt.MaxPerKey = n
}

// MaxStreams is the most streams the hub holds open at once.
func (h *Hub) MaxStreams() int { return h.opt.MaxStreams }
