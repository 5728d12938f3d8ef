package report

import "io"

// HTML writes the report as one self-contained page.
func (r *Report) HTML(w io.Writer) error { return nil }
