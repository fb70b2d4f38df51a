package connlimit

// Reserve is how many descriptors DefaultMax leaves for everything that is
// not a client connection, at least: the database and Redis pools, the
// admin listener and its clients, the SQLite files, logs. A tenth of the
// limit is kept when that is more.
const Reserve = 256

// CeilingMax bounds DefaultMax: an idle connection costs about 10 KB of
// memory (its goroutine and buffers), so 16,384 of them cost about 160 MB.
const CeilingMax = 16384

// DefaultMax is the connection bound derived from the open-file limit:
// the limit less max(Reserve, a tenth of it), at most CeilingMax, at least
// 64. With an unknown limit it is 1,024.
func DefaultMax() int { return maxFor(fileLimit()) }

func maxFor(nofile int) int {
	if nofile <= 0 {
		return 1024
	}
	return min(max(nofile-max(Reserve, nofile/10), 64), CeilingMax)
}
