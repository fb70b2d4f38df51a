package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// durationMs reads slog's duration: nanoseconds (JSON) or text ("1.5s").
func durationMs(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x / 1e6
	case string:
		if d, err := time.ParseDuration(x); err == nil {
			return float64(d.Microseconds()) / 1000
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f / 1e6
		}
	}
	return -1
}

func secs(msv float64) string {
	if msv < 1000 {
		return fmt.Sprintf("%.0f ms", msv)
	}
	return fmt.Sprintf("%.2f s", msv/1000)
}

func ms(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func mb(b float64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.2f GB", b/1e9)
	}
	return fmt.Sprintf("%.0f MB", b/1e6)
}

func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func mark(m *bool) string {
	switch {
	case m == nil:
		return ""
	case *m:
		return "ok"
	}
	return "MISS"
}
