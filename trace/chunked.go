package trace

// chunked is an append-only list stored in fixed-size chunks: appending
// never copies what is stored, and indexes stay valid.
type chunked[T any] struct {
	chunks [][]T
	n      int
	// mem, when set, is where chunks come from (T is then pointer-free).
	mem *regions
}

const chunkBits = 14

func (l *chunked[T]) add(v T) int32 {
	if l.n>>chunkBits == len(l.chunks) {
		l.chunks = append(l.chunks, flatSlice[T](l.mem, 1<<chunkBits))
	}
	c := &l.chunks[l.n>>chunkBits]
	*c = append(*c, v)
	l.n++
	return int32(l.n - 1)
}

func (l *chunked[T]) at(i int32) *T { return &l.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (l *chunked[T]) len() int { return l.n }
