package ingest

import (
	"context"
	"io"

	"github.com/idem-cli/idem/model"
)

// Source is an input that is not a named file: lines fetched from a log
// store, say. Its name is what file:line citations show; its lines are
// read, decompressed and recognised exactly as a file's.
type Source interface {
	Name() string
	Open(ctx context.Context) (io.ReadCloser, error)
}

// ReadSources is Read over sources instead of paths: the same readers,
// formats, batches and consumer, in source order.
func ReadSources(ctx context.Context, srcs []Source, opts Options, c Consumer) ([]*model.Input, error) {
	return readAll(ctx, srcs, opts, c)
}
