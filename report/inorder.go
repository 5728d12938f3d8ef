package report

import (
	"bytes"
	"runtime"
)

// inOrder encodes items 0..n-1 in chunks of size on every core and hands
// the chunks to write in order, holding only a few chunks at a time;
// write must not keep the bytes it is given, which are reused.
func inOrder(n, size int, encode func(i int, out *bytes.Buffer) error, write func([]byte)) error {
	type chunk struct {
		b   bytes.Buffer
		err error
	}
	count := (n + size - 1) / size
	results := make([]chan *chunk, count)
	for k := range results {
		results[k] = make(chan *chunk, 1)
	}
	workers := runtime.GOMAXPROCS(0)
	window := make(chan struct{}, 2*workers)
	// Chunks written are handed back to be filled again: a big report
	// would otherwise make, and clear, a fresh buffer for every chunk.
	free := make(chan *chunk, 2*workers+workers)
	jobs := make(chan int)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(jobs)
		for k := 0; k < count; k++ {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			jobs <- k
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			for k := range jobs {
				var c *chunk
				select {
				case c = <-free:
					c.b.Reset()
				default:
					c = &chunk{}
					c.b.Grow(size * 1536) // a finding is about a kilobyte or so
				}
				for i := k * size; i < min(n, (k+1)*size) && c.err == nil; i++ {
					c.err = encode(i, &c.b)
				}
				results[k] <- c
			}
		}()
	}
	for k := 0; k < count; k++ {
		c := <-results[k]
		<-window
		if c.err != nil {
			return c.err
		}
		write(c.b.Bytes())
		select {
		case free <- c:
		default:
		}
	}
	return nil
}
